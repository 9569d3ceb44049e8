"""Bulk and supervisory control of denial cases: bulk assignment, escalation, holds."""
