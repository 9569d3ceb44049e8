"""Reads of fct_denial_cells_monthly for evidence.* (the tenant's view of the snapshot)."""

from __future__ import annotations

from api.evidence.evidence.design import CellRow, Windows
from api.infra.snapshot.reader import ScopedMarts

CELLS_MART = "fct_denial_cells_monthly"


def payer_class_of(m: ScopedMarts, payer_key: str) -> str | None:
    """The payer class of a payer (case-insensitive key) in the client's cells, or None when it has none."""
    found = m.one_or_none(
        f"select min(payer_class) as payer_class from {CELLS_MART} where upper(payer_key) = upper($payer)",
        {"payer": payer_key},
    )
    return None if found is None else found["payer_class"]


def cell_rows(m: ScopedMarts, w: Windows) -> list[CellRow]:
    """The client's cells adjudicated in the before and after windows, claims summed per cell and month."""
    rows = m.rows(
        f"select adjudication_month, payer_key, payer_class, service_line, facility, denial_category, carc, "
        f"cast(sum(claims) as bigint) as claims from {CELLS_MART} "
        f"where adjudication_month >= $first and adjudication_month < $until "
        f"group by all order by all",
        {"first": w.before_from, "until": w.after_until},
    )
    return [
        CellRow(
            month=r["adjudication_month"],
            payer_key=r["payer_key"],
            payer_class=r["payer_class"],
            service_line=r["service_line"],
            facility=r["facility"],
            denial_category=r["denial_category"],
            carc=r["carc"],
            claims=int(r["claims"]),
        )
        for r in rows
    ]
