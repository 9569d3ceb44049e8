"""Dagster resources: where the warehouse lives and how to reach the operational database.

Per-environment values come from the platform settings (``DATA_DIR``,
``DATABASE_URL``), the same ones the API reads, so both sides agree on paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg
from sqlalchemy import Engine

from pipelines.warehouse.layout import WarehouseLayout


class WarehouseResource(dg.ConfigurableResource):
    """The data directory (raw zone, extract, build database, snapshots) and the operational database URL."""

    data_dir: str
    database_url: str
    parse_workers: int | None = None

    @property
    def layout(self) -> WarehouseLayout:
        return WarehouseLayout.at(self.data_dir)

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """A SQLAlchemy engine on the operational database (read-only use), disposed afterwards."""
        from api.infra.db.session import build_engine

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
        return {
            "DBT_DUCKDB_PATH": str(build_db),
            "DBT_WAREHOUSE_DIR": str(layout.warehouse_dir),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_TARGET": "duckdb",
        }


def default_warehouse() -> WarehouseResource:
    """The warehouse resource of the current environment (api.core.settings)."""
    from api.core.settings import Settings

    settings = Settings()
    return WarehouseResource(data_dir=str(settings.resolved_data_dir), database_url=settings.resolved_database_url)
