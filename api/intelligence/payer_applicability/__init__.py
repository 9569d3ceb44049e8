"""payer_applicability.*: which payer rules apply to a claim and why (the limits the deadlines apply, the payer's facts in force)."""
