"""Dagster resources: where the warehouse lives and how to reach the operational database.

Per-environment values arrive as configuration: the environment variables
``DATA_DIR`` and ``DATABASE_URL`` (the ones the API reads too, so both sides agree
on paths) or explicit arguments. The pipelines never import the API: the
operational database is reached with an engine built here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from sqlalchemy import Engine, create_engine

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.pg_export import plain_url
from pipelines.warehouse.pg_load import dbt_postgres_env


class WarehouseResource(dg.ConfigurableResource["WarehouseResource"]):
    """The data directory (raw zone, extract, build database, snapshots) and the operational database URL."""

    data_dir: str
    database_url: str
    parse_workers: int | None = None
    #: PostgreSQL warehouse (``WAREHOUSE_URL``): dbt builds there and the marts are exported to the
    #: run's DuckDB build file (``pipelines.warehouse.pg_export``); None builds in DuckDB.
    warehouse_url: str | None = None

    @property
    def layout(self) -> WarehouseLayout:
        return WarehouseLayout.at(self.data_dir)

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """A SQLAlchemy engine on the operational database (read-only use), disposed afterwards."""
        engine = build_engine(self.database_url)
        try:
            yield engine
        finally:
            engine.dispose()

    def dbt_env(self, run_id: str) -> dict[str, str]:
        """Environment variables the dbt profile and sources read, for one run's build."""
        layout = self.layout
        build_db = layout.build_db_for(run_id)
        build_db.parent.mkdir(parents=True, exist_ok=True)
        env = {
            "DBT_DUCKDB_PATH": str(build_db),
            "DBT_WAREHOUSE_DIR": str(layout.warehouse_dir),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_TARGET": "duckdb",
        }
        if self.warehouse_url:
            env.update(dbt_postgres_env(plain_url(self.warehouse_url), schema="analytics"))
        return env


DEFAULT_DATA_DIR = "data/local"


def normalise_database_url(url: str) -> str:
    """Route ``postgres://`` and ``postgresql://`` URLs to psycopg 3, the driver installed."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def default_database_url(data_dir: str | os.PathLike[str]) -> str:
    """The embedded SQLite database under ``data_dir`` (the API's default when ``DATABASE_URL`` is unset)."""
    return f"sqlite:///{Path(data_dir).resolve() / 'platform.db'}"


def build_engine(url: str) -> Engine:
    """An engine for reading the operational database (SQLite or PostgreSQL)."""
    url = normalise_database_url(url)
    if url.startswith("sqlite"):
        # The API may be writing while the extract reads: wait for its lock instead of failing at once.
        return create_engine(url, connect_args={"timeout": 30})
    return create_engine(url, pool_pre_ping=True)


def default_warehouse(environ: Mapping[str, str] | None = None) -> WarehouseResource:
    """The warehouse resource configured by ``DATA_DIR``, ``DATABASE_URL`` and ``WAREHOUSE_URL`` (``os.environ``
    by default)."""
    env = os.environ if environ is None else environ
    data_dir = Path(env.get("DATA_DIR") or DEFAULT_DATA_DIR).resolve()
    database_url = env.get("DATABASE_URL") or default_database_url(data_dir)
    return WarehouseResource(
        data_dir=str(data_dir), database_url=database_url, warehouse_url=env.get("WAREHOUSE_URL") or None
    )
