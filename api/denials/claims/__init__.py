"""Claims: the 837-level claim, its review and correction lifecycle up to submission preparation."""
