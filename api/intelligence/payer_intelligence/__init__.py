"""payer_intelligence.* procedures (served from the published mart snapshot)."""
