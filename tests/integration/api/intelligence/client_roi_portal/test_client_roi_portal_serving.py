"""clientRoiPortal.* against the ROI scorecard and the ground truth, on a real pipeline run."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def money(value) -> Decimal:
    return Decimal(value)


def test_the_portal_shows_the_roi_scorecard_and_exports_the_months(world):
    rpc = world.a.rpc
    totals = rpc.query("roiScorecard.scorecard", {}).data["totals"]
    portal = rpc.query("clientRoiPortal.summary", {}).data
    assert portal["roi"] == totals
    assert portal["claimsAdjudicated"] == world.truth["counts"]["claims"]
    exported = rpc.query("clientRoiPortal.export", {}).data
    rows = list(csv.DictReader(io.StringIO(exported["csv"])))
    assert sum(money(r["billed_amount"]) for r in rows) == money(world.truth["money"]["total_billed"])
    as_rows = rpc.query("clientRoiPortal.export", {"format": "rows"}).data
    assert [r["month"] for r in as_rows["rows"]] == [r["month"] for r in rows]
