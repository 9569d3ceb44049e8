"""Denial cases likely to miss their deadline, ranked by business days of slack."""
