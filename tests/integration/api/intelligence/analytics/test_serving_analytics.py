"""Analytical read procedures against the generator's ground truth, on a real pipeline run."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from decimal import Decimal

import pytest

from tests.integration.api.conftest import PAYER_NAMES
from tests.support.rpc_client import collect_pages

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow

READS: list[tuple[str, dict]] = [
    ("analytics.kpis", {}),
    ("analytics.trend", {"metric": "paid_amount"}),
    ("analytics.breakdown", {"by": "carc"}),
    ("payerIntelligence.scorecard", {}),
    ("payerIntelligence.denialReasons", {}),
    ("payerIntelligence.timeToPay", {}),
    ("payerIntelligence.compare", {"payers": [PAYER_NAMES["medicare"], PAYER_NAMES["medicaid"]]}),
    ("payerChangeRadar.alerts", {}),
    ("paymentIntegrity.underpayments", {}),
    ("paymentIntegrity.overpayments", {}),
    ("cashTruth.daily", {}),
    ("cashTruth.byPayer", {}),
    ("cashTruth.gaps", {}),
    ("revenueReconciliation.depositMatches", {}),
    ("revenueReconciliation.variances", {}),
    ("reconciliation.summary", {}),
    ("reconciliation.unmatchedRemittances", {}),
    ("reconciliation.unmatchedClaims", {}),
    ("roiScorecard.scorecard", {}),
    ("roiScorecard.trend", {}),
    ("clientRoiPortal.summary", {}),
    ("clientRoiPortal.export", {}),
    ("rcmPortfolio.overview", {}),
    ("rcmPortfolio.compare", {}),
    ("arOperations.aging", {}),
    ("arOperations.followUpQueue", {}),
    ("patientFinancial.balances", {}),
    ("patientFinancial.estimate", {"payer": PAYER_NAMES["medicare"], "procedureCode": "99214"}),
    ("patientFinancial.responsibilityBreakdown", {}),
]


def money(value) -> Decimal:
    return Decimal(value)


def all_items(rpc, path: str, input: dict) -> list[dict]:
    return collect_pages(rpc, path, input, limit=7)  # small pages: the cursors are exercised too


@pytest.mark.parametrize(("path", "input"), READS, ids=[p for p, _ in READS])
def test_every_read_answers_with_the_snapshot_it_came_from(world, path, input):
    data = world.a.rpc.query(path, input).data
    snap = data["snapshot"]
    assert snap["builtAt"].replace("+00:00", "Z").rstrip("Z") == world.built_at.rstrip("Z")
    assert snap["runId"] == world.pipeline_run["dagsterRunId"]
    assert snap["ageSeconds"] >= 0


def test_kpis_match_the_ground_truth_to_the_cent(world):
    t = world.truth
    k = world.a.rpc.query("analytics.kpis", {}).data["kpis"]
    assert k["claimsAdjudicated"] == t["counts"]["claims"]
    assert money(k["billedAmount"]) == money(t["money"]["total_billed"])
    assert money(k["paidAmount"]) == money(t["money"]["total_paid"])
    assert money(k["patientResponsibility"]) == money(t["money"]["total_patient_responsibility"])
    assert k["initiallyDeniedClaims"] == t["denials"]["initial_denied_claims"]
    assert money(k["initialDeniedAmount"]) == money(t["denials"]["denied_amount"])
    assert k["initialDenialRate"] == pytest.approx(t["denials"]["initial_denial_rate_by_volume"], abs=1e-6)
    # By dollars = charges of the denied claims / charges adjudicated (the generator's truth has no
    # denied charges): the denied claims' charges cover at least the dollars denied on them.
    assert money(k["initiallyDeniedCharges"]) >= money(t["denials"]["denied_amount"])
    assert k["initialDenialRateDollars"] == pytest.approx(
        float(money(k["initiallyDeniedCharges"]) / money(t["money"]["total_billed"])), abs=1e-6
    )
    assert k["cleanClaimRate"] is None and k["cleanClaimRateUnavailable"]
    assert k["overturnedClaims"] == t["overturned"]["claims"]
    assert money(k["recoveredAmount"]) == money(t["overturned"]["recovered"])
    # The overturn rate credits only denials a person worked before the payer's decision (HFMA MAP Keys;
    # issue 24): the generated corpus holds the payers' reprocessing (overturnedClaims above) and no case
    # work, so no overturn is credited to denial work.
    assert k["workedOverturnedClaims"] == 0
    assert k["overturnRate"] == 0.0


def test_trend_months_add_up_to_the_kpis_and_rates_carry_their_counts(world):
    rpc = world.a.rpc
    paid = rpc.query("analytics.trend", {"metric": "paid_amount"}).data["points"]
    assert sum(Decimal(str(p["value"])) for p in paid) == money(world.truth["money"]["total_paid"])
    rates = rpc.query("analytics.trend", {"metric": "initial_denial_rate"}).data["points"]
    assert sum(p["numerator"] for p in rates) == world.truth["denials"]["initial_denied_claims"]
    assert sum(p["denominator"] for p in rates) == world.truth["counts"]["claims"]
    first = rates[0]["month"]
    only = rpc.query("analytics.trend", {"metric": "initial_denial_rate", "fromMonth": first, "toMonth": first}).data
    assert [p["month"] for p in only["points"]] == [first]


def test_breakdown_ranks_root_causes_like_the_generator(world):
    data = world.a.rpc.query("analytics.breakdown", {"by": "category"}).data
    truth = world.truth["denials"]["by_category"]
    top = max(truth, key=lambda c: truth[c]["claims"])
    assert data["rows"][0]["key"] == top
    assert data["rows"][0]["deniedClaims"] == truth[top]["claims"]
    assert data["totalDeniedClaims"] == world.truth["denials"]["initial_denied_claims"]
    assert sum(r["deniedClaims"] for r in data["rows"]) == data["totalDeniedClaims"]
    assert money(data["totalDeniedAmount"]) == money(world.truth["denials"]["denied_amount"])
    carcs = world.a.rpc.query("analytics.breakdown", {"by": "carc"}).data["rows"]
    truth_carc = Counter({k: v["claims"] for k, v in world.truth["denials"]["by_carc"].items()})
    assert carcs[0]["deniedClaims"] == truth_carc.most_common(1)[0][1]


def test_payer_scorecard_matches_each_payer(world):
    items = all_items(world.a.rpc, "payerIntelligence.scorecard", {})
    by_key = {i["payerKey"]: i for i in items}
    assert set(by_key) == {PAYER_NAMES[k] for k in world.truth["per_payer"]}
    for key, t in world.truth["per_payer"].items():
        row = by_key[PAYER_NAMES[key]]
        assert row["claimsAdjudicated"] == t["claims"]
        assert money(row["billedAmount"]) == money(t["billed"])
        assert money(row["paidAmount"]) == money(t["paid"])
        assert row["deniedClaims"] == t["denied_claims"]
        assert row["denialRate"] == pytest.approx(t["denial_rate"], abs=1e-6)
    billed = [money(i["billedAmount"]) for i in items]
    assert billed == sorted(billed, reverse=True)


def test_time_to_pay_finds_the_planted_slow_payer(world):
    data = world.a.rpc.query("payerIntelligence.timeToPay", {}).data
    slowest = data["payers"][0]
    assert slowest["payerKey"] == PAYER_NAMES["medicaid"]
    assert slowest["daysAboveAllPayers"] > 15
    assert all(slowest["meanDays"] > p["meanDays"] + 15 for p in data["payers"][1:])
    one = world.a.rpc.query("payerIntelligence.timeToPay", {"payer": PAYER_NAMES["medicaid"].lower()}).data
    assert [p["payerKey"] for p in one["payers"]] == [PAYER_NAMES["medicaid"]]


def test_compare_returns_requested_payers_in_order(world):
    payers = [PAYER_NAMES["bluepeak"], PAYER_NAMES["medicare"], "NO SUCH PAYER"]
    data = world.a.rpc.query("payerIntelligence.compare", {"payers": payers}).data
    assert [p["payerKey"] for p in data["payers"]] == payers[:2]
    assert data["missing"] == ["NO SUCH PAYER"]


def test_denial_reasons_add_up_per_payer(world):
    items = all_items(world.a.rpc, "payerIntelligence.denialReasons", {"payer": PAYER_NAMES["northwind"]})
    assert {i["payerKey"] for i in items} == {PAYER_NAMES["northwind"]}
    assert sum(i["deniedClaims"] for i in items) == world.truth["per_payer"]["northwind"]["denied_claims"]


def test_change_radar_flags_the_planted_carc_spike(world):
    spike = next(s for s in world.truth["scenarios"] if s["kind"] == "carc_spike")
    alerts = all_items(
        world.a.rpc, "payerChangeRadar.alerts", {"payer": PAYER_NAMES["medicare"], "metric": "carc_denial_rate"}
    )
    hits = [a for a in alerts if a["carc"] == "50" and a["month"] >= spike["from_month_label"]]
    assert hits, alerts
    assert all(
        h["qValue"] <= h["falseDiscoveryRate"] and h["value"] > h["baselineMean"] and h["baselineMonths"] >= 3
        for h in hits
    )


def test_underpayments_find_the_systematic_underpayment(world):
    t = world.truth
    scenario = next(s for s in t["scenarios"] if s["kind"] == "systematic_underpayment")
    data = world.a.rpc.query(
        "paymentIntegrity.underpayments", {"payer": PAYER_NAMES["bluepeak"], "procedureCode": "99214", "limit": 500}
    ).data
    # variance is on the allowed amount (AMT*B6 - contract), so it is the allowed shortfall, not the payment's
    assert money(data["totalVariance"]) == -money(scenario["effect"]["allowed_shortfall"])
    assert data["claims"] == len(data["items"]) > 0
    everything = world.a.rpc.query("paymentIntegrity.underpayments", {"limit": 3}).data
    assert money(everything["totalVariance"]) == -money(t["underpaid"]["allowed_shortfall"])
    assert everything["nextCursor"] and len(everything["items"]) == 3
    claim = data["items"][0]["claimKey"]
    detail = world.a.rpc.query("paymentIntegrity.expectedReimbursement", {"claimKey": claim}).data
    assert detail["claimKey"] == claim and detail["payerKey"] == PAYER_NAMES["bluepeak"]
    assert sum(money(line["paidAmount"]) for line in detail["lines"]) <= money(detail["billedAmount"])
    assert any(line["procedureCode"] == "99214" and money(line["varianceAmount"]) < 0 for line in detail["lines"])


def test_ar_aging_equals_denials_not_overturned_nor_written_off(world):
    # HFMA MAP Key "Final Denials Write-off": a denial never overturned whose appeal window (180 days from
    # the initial remittance, the longest first-level window) closed by the build date is no longer
    # receivable. The generator's truth gives the dates; the build date is the world's build day.
    built = datetime.fromisoformat(world.built_at).date()
    open_rows = [
        r
        for r in world.truth_rows
        if r["denial_category"] and not r["overturned"] and r["remit_date"] + timedelta(days=180) > built
    ]
    assert open_rows, "the corpus keeps some denials inside their appeal window at the build date"
    aging = world.a.rpc.query("arOperations.aging", {}).data
    assert aging["openClaims"] == len(open_rows)
    assert money(aging["openAmount"]) == sum((r["denied_amount"] for r in open_rows), Decimal("0.00"))
    assert sum(b["claims"] for b in aging["buckets"]) == aging["openClaims"]
    early = world.a.rpc.query("arOperations.aging", {"asOf": "2025-01-01"}).data
    assert early["openClaims"] == 0
