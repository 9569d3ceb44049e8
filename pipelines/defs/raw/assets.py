"""Raw layer: every confirmed import batch file and every dropped file, parsed once into Parquet.

One multi-asset per file kind; each raw table is its own asset (``raw/<table>``)
so the dbt sources hang off the right table in the lineage graph.
"""

from collections.abc import Iterator
from typing import Any

import dagster as dg

from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.loading import SyncResult, sync_raw_kind
from pipelines.warehouse.raw_tables import tables_of_kind
from pipelines.warehouse.sources import current_sources

_DESCRIPTIONS = {
    "remittances": "835 remittance transactions (one check/EFT each: BPR, TRN, payer, payee).",
    "remittance_claims": "835 claim payments (CLP) with charge, payment, patient responsibility and status.",
    "remittance_adjustments": "835 claim adjustments: every CAS triplet (group, CARC, amount), claim or line level.",
    "remittance_service_lines": "835 service line payments (SVC) with allowed amounts.",
    "remittance_remarks": "835 remark codes (RARC) at claim (MOA/MIA) and line (LQ) level.",
    "provider_adjustments": "835 provider-level adjustments (PLB): interest, recoupments, forwarding balances.",
    "claims": "837I/837P submitted claims (CLM).",
    "claim_lines": "837 submitted service lines.",
    "csv_claims": "Claims from billing-system CSV/XLSX exports (canonical columns).",
    "csv_payments": "Payments from billing-system exports.",
    "csv_denials": "Denial work lists from billing-system exports.",
    "csv_deposits": "Bank deposits (EFT/check credits with their trace numbers) from bank statement exports.",
}
_ASSET_NAMES = {"835": "raw_era_835", "837": "raw_claims_837", "csv": "raw_exports"}
_KIND_LABEL = {"835": "X12 835 remittance", "837": "X12 837 claim", "csv": "billing-system export"}


def raw_key(table: str) -> dg.AssetKey:
    return dg.AssetKey(["raw", table])


def sync_metadata(result: SyncResult, table: str) -> dict[str, dg.MetadataValue]:
    """Row count, money totals and a Markdown preview (counts only: raw rows hold PHI)."""
    stats = result.tables[table]
    lines = ["| measure | value |", "|---|---|", f"| rows | {stats.rows:,} |"]
    lines += [f"| sum of {name} | {value:,.2f} |" for name, value in sorted(stats.totals.items())]
    lines += [
        f"| files parsed this run | {len(result.parsed)} |",
        f"| files already current | {len(result.kept)} |",
        f"| files removed (batch no longer confirmed) | {len(result.removed)} |",
        f"| files skipped (not a format we load) | {len(result.skipped)} |",
    ]
    metadata: dict[str, dg.MetadataValue] = {
        "dagster/row_count": dg.MetadataValue.int(stats.rows),
        "files_parsed": dg.MetadataValue.int(len(result.parsed)),
        "files_current": dg.MetadataValue.int(len(result.parsed) + len(result.kept)),
        "files_removed": dg.MetadataValue.int(len(result.removed)),
        "preview": dg.MetadataValue.md("\n".join(lines)),
    }
    for name, value in stats.totals.items():
        metadata[f"total_{name}"] = dg.MetadataValue.text(f"{value:.2f}")
    if result.skipped:
        metadata["skipped_files"] = dg.MetadataValue.md(
            "\n".join(f"- `{name}`: {why}" for name, why in sorted(result.skipped.items()))
        )
    return metadata


def build_raw_asset(kind: str) -> dg.AssetsDefinition:
    """The multi-asset that keeps the raw tables of one file kind in step with the sources."""
    tables = tables_of_kind(kind)

    @dg.multi_asset(
        name=_ASSET_NAMES[kind],
        specs=[
            dg.AssetSpec(raw_key(t), group_name="raw", description=_DESCRIPTIONS[t], kinds={"parquet", "polars"})
            for t in tables
        ],
        description=f"Parse every new {_KIND_LABEL[kind]} file (confirmed batches and folder drops) into raw Parquet.",
    )
    def _raw(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> Iterator[dg.MaterializeResult[Any]]:
        with warehouse.engine() as engine:
            sources = current_sources(engine, warehouse.layout)
        result = sync_raw_kind(
            warehouse.layout,
            kind,
            sources,
            workers=warehouse.parse_workers,
            progress=lambda name: context.log.debug(f"parsed {name}"),
        )
        context.log.info(
            f"{_KIND_LABEL[kind]}: {len(result.parsed)} parsed, {len(result.kept)} current, "
            f"{len(result.removed)} removed, {len(result.skipped)} skipped"
        )
        for table in tables:
            yield dg.MaterializeResult(asset_key=raw_key(table), metadata=sync_metadata(result, table))

    return _raw


raw_era_835 = build_raw_asset("835")
raw_claims_837 = build_raw_asset("837")
raw_exports = build_raw_asset("csv")

RAW_ASSETS = [raw_era_835, raw_claims_837, raw_exports]
