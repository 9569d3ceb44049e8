"""Raw table schemas, the layout and the PostgreSQL type mapping."""

from __future__ import annotations

import polars as pl
import pytest

from pipelines.ingest.x12.schemas import TABLES_835
from pipelines.warehouse.layout import WarehouseLayout, file_key
from pipelines.warehouse.pg_load import dbt_postgres_env, pg_type
from pipelines.warehouse.raw_tables import LINEAGE_COLUMNS, RAW_SCHEMAS, conform_raw, empty_raw, tables_of_kind


def test_every_raw_table_is_the_parser_schema_plus_lineage():
    for table, schema in TABLES_835.items():
        assert RAW_SCHEMAS[table] == {**schema, **LINEAGE_COLUMNS}
    assert tables_of_kind("837") == ("claims", "claim_lines")
    assert set(tables_of_kind("csv")) == {"csv_claims", "csv_payments", "csv_denials", "csv_deposits"}


def test_unknown_kind_names_the_choices():
    with pytest.raises(ValueError, match=r"unknown raw file kind 'xml'.*'835'"):
        tables_of_kind("xml")


def test_conform_orders_types_and_fills_missing_columns():
    frame = pl.DataFrame({"amount": ["1.25"], "client_id": [3], "extra": [1]})
    out = conform_raw(frame, "provider_adjustments")
    assert list(out.schema) == list(RAW_SCHEMAS["provider_adjustments"])
    assert out["amount"].dtype == pl.Decimal(18, 2)
    assert str(out["amount"][0]) == "1.25"
    assert out["batch_id"][0] is None
    assert empty_raw("claims").schema == pl.Schema(RAW_SCHEMAS["claims"])


def test_layout_paths(tmp_path):
    layout = WarehouseLayout.at(tmp_path)
    key = file_key("ab" * 32, 7)
    assert layout.raw_file("claims", key) == tmp_path.resolve() / "warehouse/raw/claims" / f"{'ab' * 32}_c7.parquet"
    assert layout.landing_path("abcd" + "0" * 60) == tmp_path.resolve() / "landing/sha256/ab/cd" / ("abcd" + "0" * 60)
    (tmp_path / "drop/client_12").mkdir(parents=True)
    (tmp_path / "drop/client_3").mkdir()
    (tmp_path / "drop/other").mkdir()
    assert [c for c, _ in layout.drop_client_dirs()] == [3, 12]


def test_postgres_types_and_env():
    assert pg_type(pl.Decimal(18, 2)) == "numeric(18, 2)"
    assert pg_type(pl.List(pl.String)) == "text"
    assert pg_type(pl.Datetime("us", "UTC")) == "timestamptz"
    assert pg_type(pl.Int64()) == "bigint"
    with pytest.raises(ValueError, match="no PostgreSQL type"):
        pg_type(pl.Struct({"a": pl.Int8}))
    env = dbt_postgres_env("postgresql+psycopg://u%40x:p%3Aw@db.example:6543/wh")
    assert (
        env["DBT_PG_HOST"],
        env["DBT_PG_PORT"],
        env["DBT_PG_USER"],
        env["DBT_PG_PASSWORD"],
        env["DBT_PG_DBNAME"],
    ) == ("db.example", "6543", "u@x", "p:w", "wh")
