"""Extract of the operational tables the marts need (Parquet under warehouse/extract/)."""

from collections.abc import Iterator
from typing import Any

import dagster as dg

from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.extract import EXTRACT_TABLES, extract_table


def extract_key(table: str) -> dg.AssetKey:
    return dg.AssetKey(["extract", table])


@dg.multi_asset(
    name="operational_extract",
    specs=[
        dg.AssetSpec(
            extract_key(name),
            group_name="extract",
            kinds={"parquet", "sqlalchemy"},
            description=f"Snapshot of the operational table `{name}` (declared columns only) for the marts.",
        )
        for name in EXTRACT_TABLES
    ],
    description="Copy the operational tables the marts need into Parquet; dbt never reads the live database.",
)
def operational_extract(
    context: dg.AssetExecutionContext, warehouse: WarehouseResource
) -> Iterator[dg.MaterializeResult[Any]]:
    layout = warehouse.layout
    layout.extract_dir.mkdir(parents=True, exist_ok=True)
    with warehouse.engine() as engine:
        for spec in EXTRACT_TABLES.values():
            result = extract_table(engine, layout, spec)
            note = "table extracted" if result.exists else "table does not exist yet: empty typed extract"
            if not result.exists:
                context.log.warning(f"{spec.name}: {note}")
            yield dg.MaterializeResult(
                asset_key=extract_key(spec.name),
                metadata={
                    "dagster/row_count": dg.MetadataValue.int(result.rows),
                    "source_table_exists": dg.MetadataValue.bool(result.exists),
                    "note": dg.MetadataValue.text(note),
                    "path": dg.MetadataValue.path(result.path),
                },
            )


EXTRACT_ASSETS = [operational_extract]
