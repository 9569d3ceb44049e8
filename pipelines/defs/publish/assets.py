"""Publishing: copy the marts into a new immutable snapshot and switch the pointer the API reads."""

from typing import Any

import dagster as dg
import duckdb

from pipelines.defs.dbt.assets import dbt_models
from pipelines.defs.dbt.project import dbt_project
from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.pg_export import database_name
from pipelines.warehouse.publish import publish_snapshot
from pipelines.warehouse.quarantine import find_quarantines

MART_PREFIXES = ("fct_", "dim_")
MARTS_SCHEMA = "marts"

MART_KEYS = sorted(
    (spec.key for spec in dbt_models.specs if spec.key.path[-1].startswith(MART_PREFIXES)),
    key=lambda key: key.to_user_string(),
)


def mart_tables(build_db: str) -> list[tuple[str, str]]:
    """``(schema, table)`` of every mart table in the build database."""
    con = duckdb.connect(build_db, read_only=True)
    try:
        rows = con.execute(
            "select table_schema, table_name from information_schema.tables "
            "where table_schema = ? and table_type = 'BASE TABLE' order by table_name",
            [MARTS_SCHEMA],
        ).fetchall()
    finally:
        con.close()
    return [(schema, name) for schema, name in rows if name.startswith(MART_PREFIXES)]


@dg.asset(
    key="published_snapshot",
    group_name="publish",
    deps=MART_KEYS,
    kinds={"duckdb"},
    description=(
        "Copy every mart into a new immutable DuckDB snapshot (tables only) and atomically switch "
        "warehouse/published.json to it; the API reads only published snapshots. Runs after the dbt "
        "build; a tenant whose rows fail a contract test is quarantined (its previous rows are kept "
        "and the pointer says why), every other tenant is published. Keeps the last 3 snapshots."
    ),
)
def published_snapshot(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.MaterializeResult[Any]:
    layout = warehouse.layout
    # This run's build; when only the publish step is materialised, the newest complete build.
    build_db = layout.build_db_for(context.run_id)
    if not build_db.is_file():
        build_db = layout.latest_complete_build() or build_db
    tables = mart_tables(str(build_db))
    # ContractStop (a failure no tenant can be held responsible for) fails this step: nothing publishes.
    # A build on the PostgreSQL warehouse was exported to build_db; its relations carry that database's name.
    catalog = database_name(warehouse.warehouse_url) if warehouse.warehouse_url else None
    quarantines = find_quarantines(build_db, build_db.parent / "dbt_target", dbt_project.manifest_path, catalog=catalog)
    for q in quarantines:
        context.log.warning(f"client {q.client_id} quarantined: {q.reason}")
    result = publish_snapshot(layout, build_db, tables, run_id=context.run_id, quarantines=quarantines)
    lines = ["| mart | rows |", "|---|---|"] + [
        f"| {name} | {rows:,} |" for name, rows in sorted(result.tables.items())
    ]
    context.log.info(f"published {result.snapshot.name} with {len(result.tables)} marts")
    return dg.MaterializeResult(
        metadata={
            "snapshot": dg.MetadataValue.path(str(result.snapshot)),
            "built_at": dg.MetadataValue.text(result.built_at),
            "marts": dg.MetadataValue.int(len(result.tables)),
            "tables": dg.MetadataValue.md("\n".join(lines)),
            "snapshots_removed": dg.MetadataValue.int(len(result.removed)),
            "quarantined_clients": dg.MetadataValue.int(len({q.client_id for q in quarantines})),
        }
    )


PUBLISH_ASSETS = [published_snapshot]
