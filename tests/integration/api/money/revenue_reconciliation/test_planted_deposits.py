"""The deposit-break planter itself (no pipeline): the serving tests' expectations rest on it."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from tests.integration.api.money.revenue_reconciliation.planted_deposits import (
    EXTRA_AMOUNT,
    EXTRA_TRACE,
    plant_differences,
)

COLUMNS = {"deposit_date": "Posted Date", "amount": "Credit", "trace_number": "Reference", "description": "Originator"}
SOURCE = (
    "Posted Date,Credit,Reference,Originator\n"
    "01/22/2026,244.64,99901000000001,MEDICARE HCCLAIMPMT\n"
    "01/28/2026,292.90,99903000000002,NORTHWIND HCCLAIMPMT\n"
    "01/31/2026,333.99,00000003,MEDICARE CHECK DEPOSIT\n"
    "01/29/2026,209.97,99901000000004,MEDICARE HCCLAIMPMT\n"
)


def test_the_three_breaks_are_planted_and_described():
    planted = plant_differences(SOURCE, COLUMNS)
    rows = list(csv.DictReader(io.StringIO(planted.csv_text)))
    assert [r["Reference"] for r in rows] == ["99901000000001", "99903000000002", "99901000000004", EXTRA_TRACE]
    assert rows[1]["Credit"] == "292.91" and planted.mismatch_trace == "99903000000002"
    assert planted.removed_trace == "00000003" and planted.removed_amount == Decimal("333.99")
    assert rows[3] == {
        "Posted Date": "01/22/2026",
        "Credit": "123.45",
        "Reference": EXTRA_TRACE,
        "Originator": "UNKNOWN ORIGINATOR ACH CREDIT",
    }
    assert planted.total == Decimal("244.64") + Decimal("292.91") + Decimal("209.97") + EXTRA_AMOUNT
    assert "00000003" not in planted.csv_text and planted.csv_text.startswith(
        "Posted Date,Credit,Reference,Originator\n"
    )


def test_a_file_it_cannot_plant_into_is_refused():
    with pytest.raises(ValueError, match="at least 3"):
        plant_differences("\n".join(SOURCE.splitlines()[:3]) + "\n", COLUMNS)
    duplicated = SOURCE + "02/01/2026,1.00,99901000000001,MEDICARE HCCLAIMPMT\n"
    with pytest.raises(ValueError, match="unique"):
        plant_differences(duplicated, COLUMNS)
