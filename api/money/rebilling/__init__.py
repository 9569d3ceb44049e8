"""Corrected-claim and resubmission work, checked against the timely-filing limits."""
