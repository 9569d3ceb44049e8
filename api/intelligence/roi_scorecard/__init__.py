"""roi_scorecard.* procedures (served from the published mart snapshot)."""
