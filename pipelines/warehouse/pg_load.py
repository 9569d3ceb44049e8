"""Load the raw zone and the operational extract into PostgreSQL for the dbt ``postgres`` target.

The same Parquet the DuckDB build reads becomes tables ``raw.<table>`` and
``ops_extract.<table>`` (dropped and re-created each load), streamed with
``COPY ... FROM STDIN`` (CSV written by DuckDB, so no row-by-row Python).
List columns become comma-separated text (the models do not use them).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import polars as pl
import psycopg

from pipelines.warehouse.extract import EXTRACT_TABLES
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.raw_tables import RAW_SCHEMAS

RAW_SCHEMA = "raw"
EXTRACT_SCHEMA = "ops_extract"


def pg_type(dtype: pl.DataType) -> str:
    """The PostgreSQL column type for a Polars dtype of the raw/extract schemas."""
    if isinstance(dtype, pl.Decimal):
        return f"numeric({dtype.precision or 38}, {dtype.scale})"
    if isinstance(dtype, pl.Datetime):
        return "timestamptz" if dtype.time_zone else "timestamp"
    if isinstance(dtype, pl.List):
        return "text"
    simple = {
        pl.Int64: "bigint",
        pl.Int32: "integer",
        pl.String: "text",
        pl.Date: "date",
        pl.Boolean: "boolean",
        pl.Float64: "double precision",
    }
    for kind, name in simple.items():
        if dtype == kind:
            return name
    raise ValueError(f"no PostgreSQL type for {dtype}")


def _select_list(schema: dict[str, pl.DataType]) -> str:
    parts = []
    for name, dtype in schema.items():
        column = '"' + name + '"'
        parts.append(f"array_to_string({column}, ',') as {column}" if isinstance(dtype, pl.List) else column)
    return ", ".join(parts)


def _load_table(
    cur: psycopg.Cursor,
    duck: duckdb.DuckDBPyConnection,
    schema_name: str,
    table: str,
    schema: dict[str, pl.DataType],
    source_sql: str,
    scratch: Path,
) -> int:
    columns = ", ".join(f'"{n}" {pg_type(t)}' for n, t in schema.items())
    cur.execute(f'drop table if exists "{schema_name}"."{table}"')
    cur.execute(f'create table "{schema_name}"."{table}" ({columns})')
    csv_path = scratch / f"{schema_name}.{table}.csv"
    duck.execute(f"copy (select {_select_list(schema)} from {source_sql}) to '{csv_path}' (header false, format csv)")
    names = ", ".join(f'"{n}"' for n in schema)
    with (
        cur.copy(f'copy "{schema_name}"."{table}" ({names}) from stdin (format csv)') as copy,
        open(csv_path, "rb") as fh,
    ):
        for block in iter(lambda: fh.read(1 << 20), b""):
            copy.write(block)
    cur.execute(f'select count(*) from "{schema_name}"."{table}"')
    row = cur.fetchone()
    assert row is not None  # count(*) always returns one row
    return int(row[0])


def load_into_postgres(layout: WarehouseLayout, url: str) -> dict[str, int]:
    """Replace ``raw.*`` and ``ops_extract.*`` in the database at ``url``; returns rows per table."""
    counts: dict[str, int] = {}
    duck = duckdb.connect()
    try:
        with tempfile.TemporaryDirectory(prefix="pgload-") as tmp, psycopg.connect(url) as conn, conn.cursor() as cur:
            scratch = Path(tmp)
            for schema_name in (RAW_SCHEMA, EXTRACT_SCHEMA):
                cur.execute(f'create schema if not exists "{schema_name}"')
            for table, schema in RAW_SCHEMAS.items():
                files = layout.raw_glob(table)
                if not layout.raw_table_dir(table).is_dir():
                    raise FileNotFoundError(
                        f"raw table {table} has no folder under {layout.raw_dir}: run the raw assets first"
                    )
                source = f"read_parquet('{files}', union_by_name = true)"
                counts[f"{RAW_SCHEMA}.{table}"] = _load_table(cur, duck, RAW_SCHEMA, table, schema, source, scratch)
            for name, spec in EXTRACT_TABLES.items():
                path = layout.extract_dir / f"{name}.parquet"
                if not path.is_file():
                    raise FileNotFoundError(f"extract {name}.parquet is missing: run the extract asset first")
                source = f"read_parquet('{path}')"
                counts[f"{EXTRACT_SCHEMA}.{name}"] = _load_table(
                    cur, duck, EXTRACT_SCHEMA, name, spec.polars_schema(), source, scratch
                )
            conn.commit()
    finally:
        duck.close()
    return counts


def dbt_postgres_env(url: str, *, schema: str = "analytics") -> dict[str, str]:
    """The DBT_PG_* variables the ``postgres`` target of profiles.yml reads, from a PostgreSQL URL."""
    parsed = urlparse(url.replace("postgresql+psycopg://", "postgresql://"))
    return {
        "DBT_TARGET": "postgres",
        "DBT_PG_HOST": parsed.hostname or "127.0.0.1",
        "DBT_PG_PORT": str(parsed.port or 5432),
        "DBT_PG_USER": unquote(parsed.username or "postgres"),
        "DBT_PG_PASSWORD": unquote(parsed.password or ""),
        "DBT_PG_DBNAME": parsed.path.lstrip("/"),
        "DBT_PG_SCHEMA": schema,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }


def dbt_build_postgres(url: str, *, target_path: Path, schema: str = "analytics") -> subprocess.CompletedProcess[str]:
    """Run ``dbt build --target postgres`` against ``url`` (after ``load_into_postgres``).

    ``target_path`` keeps dbt's artefacts away from the manifest the Dagster code location uses.
    """
    import os
    import sys

    project_dir = Path(__file__).resolve().parents[2] / "dbt_project"
    dbt = Path(sys.executable).with_name("dbt")
    command = [
        str(dbt) if dbt.exists() else "dbt",
        "build",
        "--target",
        "postgres",
        "--project-dir",
        str(project_dir),
        "--profiles-dir",
        str(project_dir),
        "--target-path",
        str(target_path),
    ]
    env = {**os.environ, **dbt_postgres_env(url, schema=schema)}
    return subprocess.run(command, check=False, env=env, cwd=project_dir, capture_output=True, text=True)
