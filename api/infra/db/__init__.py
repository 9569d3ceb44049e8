"""Operational database: models, sessions, tenancy scoping and migrations."""
