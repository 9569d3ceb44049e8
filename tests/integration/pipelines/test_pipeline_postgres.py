"""The same dbt project builds on PostgreSQL from the same raw Parquet, with the same key numbers."""

from __future__ import annotations

import psycopg
import pytest

from pipelines.warehouse.layout import WarehouseLayout
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
