"""patient_financial.* procedures (served from the published mart snapshot)."""
