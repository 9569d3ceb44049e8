"""Dagster definitions, one folder per domain (raw, extract, dbt, publish, automation, checks)."""
