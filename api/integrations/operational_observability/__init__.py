"""operational_observability.* procedures (served from the published mart snapshot)."""
