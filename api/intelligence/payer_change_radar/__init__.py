"""payer_change_radar.* procedures (served from the published mart snapshot)."""
