#!/bin/sh
# One role per database, each owning only its own (docs/operations.md, "PostgreSQL roles"):
# platform (the operational database: API, worker, migrate), warehouse (dbt's build: raw, ops_extract,
# staging, intermediate, marts), dagster (Dagster's run, event and schedule storage).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v platform_pw="$PLATFORM_DB_PASSWORD" -v warehouse_pw="$WAREHOUSE_DB_PASSWORD" -v dagster_pw="$DAGSTER_DB_PASSWORD" <<'SQL'
CREATE ROLE platform LOGIN PASSWORD :'platform_pw';
CREATE ROLE warehouse LOGIN PASSWORD :'warehouse_pw';
CREATE ROLE dagster LOGIN PASSWORD :'dagster_pw';
CREATE DATABASE platform OWNER platform;
CREATE DATABASE warehouse OWNER warehouse;
CREATE DATABASE dagster OWNER dagster;
REVOKE ALL ON DATABASE platform FROM PUBLIC;
REVOKE ALL ON DATABASE warehouse FROM PUBLIC;
REVOKE ALL ON DATABASE dagster FROM PUBLIC;
SQL
