"""Warehouse helpers with no Dagster import: raw-zone layout, file discovery,
parsing files into raw Parquet, the operational extract, the PostgreSQL
loader, publishing snapshots and reading the published one."""
