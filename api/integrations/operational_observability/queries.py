"""Freshness of the published marts for operationalObservability.freshness."""

from __future__ import annotations

from api.infra.marts.reader import ScopedMarts
from api.infra.marts.serving import SnapshotOut
from api.integrations.operational_observability.schemas import MartFreshness


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
