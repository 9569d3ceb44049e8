"""The same dbt project builds on PostgreSQL from the same raw Parquet, with the same key numbers."""

from __future__ import annotations

import shutil

import psycopg
import pytest

from pipelines.runner import run_pipeline
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.pg_export import BUILD_LOCK_KEY, build_lock
from pipelines.warehouse.pg_load import dbt_build_postgres, load_into_postgres
from pipelines.warehouse.raw_tables import RAW_SCHEMAS
from pipelines.warehouse.snapshot import open_published
from tests.conftest import create_pg_database, drop_pg_database
from tests.integration.pipelines.conftest import measured_after_generated_history

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

KEY_TOTALS = {
    "fct_claim_reconciliation": "select count(*), sum(case when initially_denied then 1 else 0 end), "
    "sum(initial_denied_amount), sum(paid_amount), sum(patient_responsibility), "
    "sum(case when overturned then 1 else 0 end), sum(recovered_amount) "
    "from {schema}fct_claim_reconciliation",
    "fct_claim_adjustments": "select group_code, sum(amount), count(*) from {schema}fct_claim_adjustments "
    "group by group_code order by group_code",
    "fct_kpis_monthly": "select month, claims_adjudicated, initially_denied_claims, initial_denied_amount "
    "from {schema}fct_kpis_monthly order by month",
    "fct_provider_adjustments": "select sum(amount), count(*) from {schema}fct_provider_adjustments",
    "fct_payer_denials_monthly": "select count(*), sum(denied_claims), sum(denied_amount) from {schema}fct_payer_denials_monthly",
    "fct_service_lines": "select sum(allowed_variance), count(expected_allowed_amount) from {schema}fct_service_lines",
    "fct_denial_cells_monthly": "select service_line, count(*), sum(claims), sum(denied_amount), sum(billed_amount), "
    "count(distinct facility) from {schema}fct_denial_cells_monthly group by service_line order by service_line",
}


def test_dbt_build_on_postgres_matches_duckdb(pipeline_world, pg_server, tmp_path):
    url = create_pg_database(pg_server)
    try:
        counts = load_into_postgres(WarehouseLayout.at(pipeline_world.data_dir), url)
        assert set(counts) >= {f"raw.{t}" for t in RAW_SCHEMAS}
        assert counts["raw.remittance_claims"] > 0
        with measured_after_generated_history():
            built = dbt_build_postgres(url, target_path=tmp_path / "target")
        assert built.returncode == 0, built.stdout[-5000:]
        with psycopg.connect(url) as conn, open_published(pipeline_world.data_dir) as snap:
            for name, sql in KEY_TOTALS.items():
                on_postgres = [tuple(row) for row in conn.execute(sql.format(schema="marts.")).fetchall()]
                on_duckdb = [tuple(row) for row in snap.connection.execute(sql.format(schema="")).fetchall()]
                assert on_postgres == on_duckdb, name
    finally:
        drop_pg_database(pg_server, url)


def test_loader_replaces_tables_on_a_second_load(pipeline_world, pg_server):
    url = create_pg_database(pg_server)
    try:
        layout = WarehouseLayout.at(pipeline_world.data_dir)
        first = load_into_postgres(layout, url)
        second = load_into_postgres(layout, url)
        assert first == second
        with psycopg.connect(url) as conn:
            types = dict(
                conn.execute(
                    "select column_name, data_type from information_schema.columns "
                    "where table_schema = 'raw' and table_name = 'remittance_claims'"
                ).fetchall()
            )
        assert types["paid_amount"] == "numeric"
        assert types["payment_date"] == "date"
        assert types["remark_codes"] == "text"
    finally:
        drop_pg_database(pg_server, url)


def test_pipeline_with_a_postgres_warehouse_publishes_the_same_marts(pipeline_world, pg_server, tmp_path):
    """WAREHOUSE_URL: the whole pipeline (Dagster's dbt asset on PostgreSQL, export, publish) serves the
    numbers the DuckDB build serves, from a DuckDB snapshot the API reads as always."""
    data_dir = tmp_path / "data"
    shutil.copytree(pipeline_world.data_dir, data_dir, symlinks=True)
    url = create_pg_database(pg_server)
    try:
        with measured_after_generated_history():
            summary = run_pipeline(data_dir, f"sqlite:///{data_dir / 'platform.db'}", warehouse_url=url)
        assert summary.success, summary.errors
        with open_published(data_dir) as on_pg, open_published(pipeline_world.data_dir) as on_duckdb:
            assert on_pg.run_id == summary.run_id
            assert on_pg.tables == on_duckdb.tables  # every mart, with the same row counts
            published = set(on_pg.tables)
            for name, sql in KEY_TOTALS.items():
                mine = on_pg.connection.execute(sql.format(schema="")).fetchall()
                theirs = on_duckdb.connection.execute(sql.format(schema="")).fetchall()
                assert mine == theirs, name
        with psycopg.connect(url) as conn:  # the build ran there: its marts are in the warehouse database
            built = {
                name
                for (name,) in conn.execute(
                    "select table_name from information_schema.tables where table_schema = 'marts'"
                ).fetchall()
            }
        assert published <= built
    finally:
        drop_pg_database(pg_server, url)


def test_builds_on_one_warehouse_take_turns(pg_server):
    """The build lock is held for a whole build: a second build waits for it (pg_try_advisory_lock says so)."""
    url = create_pg_database(pg_server)
    try:
        with build_lock(url), psycopg.connect(url, autocommit=True) as other:
            (free,) = other.execute("select pg_try_advisory_lock(%s)", [BUILD_LOCK_KEY]).fetchone() or (None,)
            assert free is False
        with psycopg.connect(url, autocommit=True) as other:
            (free,) = other.execute("select pg_try_advisory_lock(%s)", [BUILD_LOCK_KEY]).fetchone() or (None,)
            assert free is True
    finally:
        drop_pg_database(pg_server, url)
