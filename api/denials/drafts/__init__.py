"""Drafts of appeal letters, corrected claims and notes on a denial case, versioned until approved."""
