"""Actions on a denial case (an appeal packet submitted, a corrected claim sent, a portal message) that run only once, only after approval."""
