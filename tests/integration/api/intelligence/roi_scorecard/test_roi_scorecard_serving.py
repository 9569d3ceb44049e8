"""roiScorecard.*: the net benefit and the months add up, on a real pipeline run (the client portal shows
the same figures: tests/integration/api/intelligence/client_roi_portal)."""

from __future__ import annotations

from decimal import Decimal

import pytest

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def money(value) -> Decimal:
    return Decimal(value)


def test_net_benefit_is_recovered_less_cost_and_the_months_add_up(world):
    rpc = world.a.rpc
    totals = rpc.query("roiScorecard.scorecard", {}).data["totals"]
    assert money(totals["netBenefit"]) == money(totals["recoveredAmount"]) - money(totals["costOfWork"])
    months = rpc.query("roiScorecard.trend", {}).data["months"]
    assert sum(money(m["recoveredAmount"]) for m in months) == money(totals["recoveredAmount"])
