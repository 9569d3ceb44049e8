"""rcm_portfolio.* procedures (served from the published mart snapshot)."""
