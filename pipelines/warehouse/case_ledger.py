"""The guard's reading of ``fct_case_ledger_differences``: how many differences, of which kinds, and the
first ones, named by case id and claim x payer digest (never a claim key: claim keys are PHI-ish).

The Dagster asset check ``case_ledger_agrees`` (``pipelines/defs/checks/case_ledger_checks.py``)
reports this; the rule itself is the dbt model's (``int_denial_cases_compared``, documented in
``dbt_project/models/marts/_case_ledger.yml``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import duckdb

DIFFERENCES_MART = "fct_case_ledger_differences"
#: how many differences the check's metadata lists
FIRST = 20
#: the columns shown per difference: no claim key, no payer name
SHOWN = (
    "client_id",
    "difference_kind",
    "case_id",
    "claim_payer_digest",
    "ledger_amount",
    "case_amount",
)


@dataclass(frozen=True)
class LedgerGuard:
    """The differences of one build: total, per kind, per client, and the first ``FIRST`` of them."""

    differences: int
    by_kind: dict[str, int] = field(default_factory=dict)
    clients: int = 0
    first: list[dict[str, Any]] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.differences == 0


def _plain(value: Any) -> Any:
    """A JSON-friendly value (money as a string with its cents)."""
    if value is None or isinstance(value, (int, str)):
        return value
    return str(value)


def read_guard(con: duckdb.DuckDBPyConnection, relation: str = DIFFERENCES_MART, first: int = FIRST) -> LedgerGuard:
    """Summarise the differences mart at ``relation`` (e.g. ``marts.fct_case_ledger_differences``)."""
    by_kind = dict(con.execute(f"select difference_kind, count(*) from {relation} group by 1 order by 1").fetchall())
    clients_row = con.execute(f"select count(distinct client_id) from {relation}").fetchone()
    columns = ", ".join(SHOWN)
    rows = con.execute(
        f"select {columns} from {relation} order by client_id, difference_kind, case_id nulls last, "
        f"claim_payer_digest limit {int(first)}"
    ).fetchall()
    return LedgerGuard(
        differences=sum(int(n) for n in by_kind.values()),
        by_kind={str(k): int(n) for k, n in by_kind.items()},
        clients=int(clients_row[0]) if clients_row else 0,
        first=[{name: _plain(v) for name, v in zip(SHOWN, row, strict=True)} for row in rows],
    )
