"""payment_integrity.* procedures (served from the published mart snapshot)."""
