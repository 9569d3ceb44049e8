"""ar_operations.* procedures (served from the published mart snapshot)."""
