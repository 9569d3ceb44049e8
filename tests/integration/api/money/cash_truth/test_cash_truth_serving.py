"""cashTruth.* against the generator's ground truth, on a real pipeline run."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.rpc_client import collect_pages

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def money(value) -> Decimal:
    return Decimal(value)


def all_items(rpc, path: str, input: dict) -> list[dict]:
    return collect_pages(rpc, path, input, limit=7)  # small pages: the cursors are exercised too


def test_cash_truth_totals_equal_the_remittances(world):
    x12 = world.truth["x12"]
    data = world.a.rpc.query("cashTruth.byPayer", {}).data
    assert money(data["total"]["cashReceived"]) == money(x12["bpr_total"])
    assert money(data["total"]["providerAdjustments"]) == money(x12["plb_total"])
    assert sum(money(p["cashReceived"]) for p in data["payers"]) == money(x12["bpr_total"])
    assert money(data["total"]["contractShortfall"]) == money(world.truth["underpaid"]["allowed_shortfall"])
    days = all_items(world.a.rpc, "cashTruth.daily", {})
    assert sum(money(d["cashReceived"]) for d in days) == money(x12["bpr_total"])
    gaps = world.a.rpc.query("cashTruth.gaps", {"limit": 500}).data
    assert money(gaps["totalGap"]) == sum(money(g["gap"]) for g in gaps["items"]) > 0
