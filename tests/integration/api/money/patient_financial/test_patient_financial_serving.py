"""patientFinancial.* against the generator's ground truth, on a real pipeline run."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.integration.api.conftest import PAYER_NAMES

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def money(value) -> Decimal:
    return Decimal(value)


def test_patient_financial_balances_and_breakdown(world):
    t = world.truth
    balances = world.a.rpc.query("patientFinancial.balances", {"limit": 5}).data
    assert money(balances["totalPatientResponsibility"]) == money(t["money"]["total_patient_responsibility"])
    amounts = [money(i["patientResponsibility"]) for i in balances["items"]]
    assert amounts == sorted(amounts, reverse=True) and balances["nextCursor"]
    breakdown = world.a.rpc.query("patientFinancial.responsibilityBreakdown", {}).data
    assert money(breakdown["totalAmount"]) == money(t["x12"]["cas_by_group"]["PR"])
    assert {r["carc"] for r in breakdown["rows"]} >= {"1", "2"}
    assert next(r for r in breakdown["rows"] if r["carc"] == "1")["description"] == "Deductible amount"
    estimate = world.a.rpc.query(
        "patientFinancial.estimate", {"payer": PAYER_NAMES["medicare"], "procedureCode": "99214"}
    ).data
    assert estimate["observedLines"] > 0 and money(estimate["meanAllowedAmount"]) > 0
