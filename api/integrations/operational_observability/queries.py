"""Reads of the published marts for operationalObservability.*: freshness per mart, and the case
ledger guard's differences (fct_case_ledger_differences)."""

from __future__ import annotations

from typing import Any

from api.infra.marts.inputs import page_as
from api.infra.marts.serving import SnapshotOut
from api.infra.snapshot.reader import ScopedMarts
from api.integrations.operational_observability.schemas import (
    CaseLedgerDifference,
    CaseLedgerDifferencesIn,
    MartFreshness,
)

DIFFERENCES_MART = "fct_case_ledger_differences"


def mart_freshness(m: ScopedMarts, snapshot: SnapshotOut) -> list[MartFreshness]:
    """Every mart of the snapshot with the rows this tenant has in it (0 for reference data)."""
    marts = []
    for table in m.snapshot.tables:
        rows = m.one(f"select count(*) as n from {table}")["n"]
        marts.append(
            MartFreshness(
                mart=table,
                built_at=snapshot.built_at,
                age_seconds=snapshot.age_seconds,
                tenant_rows=int(rows) if table in m.snapshot.tenant_tables else 0,
            )
        )
    return marts


def case_ledger_differences(
    m: ScopedMarts, input: CaseLedgerDifferencesIn
) -> tuple[int, list[CaseLedgerDifference], str | None]:
    """(count of the tenant's differences of the kind asked, one page of them, next cursor)."""
    where, params = "true", dict[str, Any]()
    if input.kind:
        where, params["kind"] = "difference_kind = $kind", input.kind
    total = int(m.one(f"select count(*) as n from {DIFFERENCES_MART} where {where}", params)["n"])
    items, cursor = page_as(
        m,
        CaseLedgerDifference,
        f"select * from {DIFFERENCES_MART} where {where} order by difference_kind, case_id nulls last, difference_key",
        params,
        input,
    )
    return total, items, cursor
