"""revenuePayerIntelligence.atRisk and .trend on a hand-written 835 (tests/fixtures/x12/hand/revenue_risk.835,
README "Revenue at risk per payer"), through the real pipeline build, on SQLite and PostgreSQL operational
databases.

By hand, payer HAND RISK PAYER: denials RSK-1 100.00 (Jan), RSK-2 300.00 (Jan, overturned in March: 300.00
recovered), RSK-4 200.00 and RSK-5 400.00 (Feb), RSK-6 150.00 (Mar); RSK-3 paid. So n = 5, k = 1, denied
1,150.00, recovered 300.00, at risk 850.00 = 100 + 0 + 200 + 400 + 150, S2 = 232,500. The expected recovery
and its interval are worked out in tests/unit/api/intelligence/revenue_payer_intelligence/test_risk.py
(212.50, 0.00 to 679.28; loss 637.50, 170.72 to 850.00), the trend of 100, 600, 150 there too (25.00 a
month, -3,459.57 to 3,509.57: no trend).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

PAYER = "HAND RISK PAYER"
D = Decimal


@before_shared_run
def risk_world_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post("revenue_risk.835")
    assert [b["status"] for b in batches] == ["confirmed"], batches


@pytest.fixture(scope="module")
def risk_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(risk_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def test_the_payers_money_at_risk_and_its_expected_recovery(risk_world):
    answer = risk_world.rpc.query("revenuePayerIntelligence.atRisk", {}).data
    [payer] = answer["items"]
    assert payer["payerKey"] == PAYER
    assert (payer["deniedClaims"], payer["overturnedClaims"]) == (5, 1)
    money = ("deniedAmount", "recoveredAmount", "atRiskAmount", "expectedRecovery", "recoveryLow", "recoveryHigh")
    assert [D(payer[k]) for k in money] == [D("1150.00"), D("300.00"), D("850.00"), D("212.50"), D("0.00"), D("679.28")]
    assert [D(payer[k]) for k in ("expectedLoss", "lossLow", "lossHigh")] == [D("637.50"), D("170.72"), D("850.00")]
    assert payer["overturnRate"] == pytest.approx(0.25)
    total = answer["total"]
    assert total["payers"] == 1
    assert [D(total[k]) for k in money] == [D("1150.00"), D("300.00"), D("850.00"), D("212.50"), D("0.00"), D("679.28")]
    assert "upper reading" in answer["assumption"]


def test_the_denied_and_recovered_money_is_the_scorecards(risk_world):
    # one set of rows (claim x payer): what atRisk calls denied and recovered is what the scorecard shows
    [score] = risk_world.pages("payerIntelligence.scorecard")
    [payer] = risk_world.rpc.query("revenuePayerIntelligence.atRisk", {}).data["items"]
    assert (score["deniedClaims"], D(score["deniedAmount"]), D(score["recoveredAmount"])) == (
        payer["deniedClaims"],
        D(payer["deniedAmount"]),
        D(payer["recoveredAmount"]),
    )


def test_months_and_payer_narrow_the_answer(risk_world):
    feb = risk_world.rpc.query("revenuePayerIntelligence.atRisk", {"fromMonth": "2026-02", "toMonth": "2026-02"}).data
    # February alone: 2 denials, none overturned, 600.00 at risk; Beta(0.5, 2.5): E[p] = 1/6 -> 100.00
    [payer] = feb["items"]
    assert (payer["deniedClaims"], D(payer["atRiskAmount"]), D(payer["expectedRecovery"])) == (
        2,
        D("600.00"),
        D("100.00"),
    )
    assert risk_world.rpc.query("revenuePayerIntelligence.atRisk", {"payer": "nobody"}).data["items"] == []
    assert risk_world.rpc.query("revenuePayerIntelligence.atRisk", {"payer": PAYER.lower()}).data["items"] != []


def test_the_monthly_trend(risk_world):
    answer = risk_world.rpc.query(
        "revenuePayerIntelligence.trend", {"payer": PAYER, "fromMonth": "2026-01", "toMonth": "2026-04"}
    ).data
    months = [(m["month"], m["deniedClaims"], D(m["deniedAmount"]), D(m["atRiskAmount"])) for m in answer["months"]]
    assert months == [
        ("2026-01", 2, D("400.00"), D("100.00")),
        ("2026-02", 2, D("600.00"), D("600.00")),
        ("2026-03", 1, D("150.00"), D("150.00")),
        ("2026-04", 0, D("0.00"), D("0.00")),  # a month without denials is a zero, not a gap
    ]
    three = risk_world.rpc.query("revenuePayerIntelligence.trend", {"payer": PAYER, "toMonth": "2026-03"}).data
    # default range: the 12 months up to March 2026; the first nine are zeros. Only the three of the hand file:
    only = risk_world.rpc.query(
        "revenuePayerIntelligence.trend", {"payer": PAYER, "fromMonth": "2026-01", "toMonth": "2026-03"}
    ).data
    assert (D(only["slopePerMonth"]), D(only["slopeLow"]), D(only["slopeHigh"])) == (
        D("25.00"),
        D("-3459.57"),
        D("3509.57"),
    )
    assert only["statement"].startswith("no trend")
    assert three["months"][0]["month"] == "2025-04" and len(three["months"]) == 12


def test_bad_months_are_refused(risk_world):
    bad = risk_world.rpc.query("revenuePayerIntelligence.trend", {"fromMonth": "2026-05", "toMonth": "2026-01"})
    assert bad.code == "BAD_REQUEST" and "fromMonth must not be after toMonth" in bad.body["error"]["message"]
