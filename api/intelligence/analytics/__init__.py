"""analytics.* procedures (served from the published mart snapshot)."""
