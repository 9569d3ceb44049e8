"""Dagster definitions, one folder per domain (raw, extract, dbt, publish, automation, checks),
and the resources they share (`resources.py`)."""
