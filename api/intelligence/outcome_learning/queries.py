"""The case-ledger guard's findings read from the published marts (fct_case_ledger_differences)."""

from __future__ import annotations

from api.infra.snapshot.reader import ScopedMarts

DIFFERENCES_MART = "fct_case_ledger_differences"


def differing_case_ids(m: ScopedMarts) -> frozenset[int]:
    """The tenant's cases the guard found disagreeing with the marts' money (any kind of difference)."""
    rows = m.rows(f"select distinct case_id from {DIFFERENCES_MART} where case_id is not null")
    return frozenset(int(r["case_id"]) for r in rows)
