"""BPR03=D: the payer takes money back, so the claims and PLBs net to minus BPR02 (hand-computed)."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from pipelines.ingest.x12 import parse_x12
from tests.support.paths import X12_FIXTURES


def _transaction_check(name: str) -> dict:
    result = parse_x12((X12_FIXTURES / "hand" / name).read_bytes(), source=name)
    return result.quality.filter(pl.col("check") == "transaction_balance").row(0, named=True)


def test_a_debit_balances_against_minus_bpr02() -> None:
    row = _transaction_check("debit_reversal_150.835")
    # BPR*I*150.00*D: expected -150.00; CLP04 -150.00, no PLB.
    assert (row["expected"], row["actual"], row["ok"]) == (Decimal("-150.00"), Decimal("-150.00"), True)


def test_a_credit_that_does_not_tie_reports_its_difference() -> None:
    row = _transaction_check("unbalanced_bpr02.835")
    # BPR02 250.00 against 150.00 + 80.00.
    assert (row["expected"], row["actual"], row["difference"], row["ok"]) == (
        Decimal("250.00"),
        Decimal("230.00"),
        Decimal("20.00"),
        False,
    )
