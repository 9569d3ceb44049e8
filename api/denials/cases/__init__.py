"""Denial cases: the unit of recovery work, one per claim x payer x denial event."""
