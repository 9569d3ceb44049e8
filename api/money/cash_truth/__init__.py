"""cash_truth.* procedures (served from the published mart snapshot)."""
