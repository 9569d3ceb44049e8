"""Runtime health: database and queue only (never which optional integrations are configured)."""
