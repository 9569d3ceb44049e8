"""outcomeLearning.* and outcomeEvaluation.* over the wire, on SQLite and PostgreSQL.

Decided appeals are recorded through the outcomes service (the RPC path of outcomes.record is covered by
tests/integration/api/denials/outcomes; 60 calls over HTTP would only be slower), on cases written through
the ORM inside the tenant like tests/integration/api/denials/human_attention/test_calibration.py. The
case-ledger guard's snapshot is a real published pointer with a real DuckDB `fct_case_ledger_differences`
(the mart's tenant columns and case_id), read by a real MartReader over a directory of this test.
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from api.denials.cases.models import DenialCase
from api.intelligence.outcome_learning import service as learning
from tests.support.outcome_learning import noise, plant, publisher, signal


@pytest.fixture
def publish(services, tmp_path, monkeypatch):
    """See tests.support.outcome_learning.publisher."""
    return publisher(services, tmp_path / "warehouse", monkeypatch)


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927) score interval, written out."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_planted_signal_beats_the_prior_and_predicts_with_the_model(services, make_member, publish):
    member = make_member()
    today = datetime.now(UTC).date()
    first = today - timedelta(days=200)
    cases = plant(services, member, signal, 60, first_day=first)
    # two more decided appeals whose cases the guard found differing: never learned from
    differing = plant(services, member, signal, 2, first_day=first + timedelta(days=10), start=60)
    publish(member, differing)
    # and one on a case opened after the snapshot was built: not yet checked by the guard
    plant(services, member, signal, 1, first_day=first + timedelta(days=20), start=62)

    started = time.perf_counter()
    trained = member.rpc.mutation("outcomeLearning.train", {})
    seconds = time.perf_counter() - started
    print(f"outcomeLearning.train on 60 outcomes: {seconds:.2f} s")
    out = trained.data
    assert out is not None, trained.body
    # 60 kept of 63 decided (2 differing + 1 unchecked); held out: the latest ceil(60 x 0.25) = 15 rows
    # (rows 45..59, each on its own day), split on the day of row 45: first + 45 days
    assert (out["version"], out["outcomes"], out["excludedOutcomes"]) == (1, 60, 3)
    assert (out["trainedRows"], out["heldOutRows"]) == (45, 15)
    assert out["splitDate"] == (first + timedelta(days=45)).isoformat()
    # held-out successes: rows 45..59; ACME (i mod 4 = 0: 48, 52, 56) always, CEDAR/DELTA at level 1
    # (level 1 when (i div 4) is even: 48..51 and 56..59 -> 50, 51, 58, 59) -> 3 + 4 = 7
    assert (out["model"]["n"], out["model"]["successes"], out["prior"]["successes"]) == (15, 7, 7)
    assert out["beatsPrior"] is True and out["brierDifference"]["high"] < 0, out["verdict"]
    assert out["model"]["brier"]["value"] < out["prior"]["brier"]["value"]
    assert out["calibrated"] is False and "calibration skipped" in out["calibrationNote"]
    assert member.rpc.query("outcomeLearning.metrics", {}).data == out
    assert member.rpc.query("outcomeLearning.metrics", {"version": 1}).data == out

    cedar_level_2 = cases[6]  # row 6: CEDAR, level 2 (6 div 4 = 1)
    p = member.rpc.query("outcomeLearning.predict", {"caseId": cedar_level_2, "action": "appeal-level-1"}).data
    assert (p["source"], p["modelVersion"], p["action"]) == ("model", 1, "appeal-level-1")
    assert p["probability"] > 0.5 and p["contributions"]
    assert p["low"] <= p["high"] and "model answered" in p["why"]
    lose = member.rpc.query("outcomeLearning.predict", {"caseId": cedar_level_2, "action": "appeal-level-2"}).data
    assert lose["probability"] < 0.5 < p["probability"]
    # default action: the level after the highest decided on the case (2 -> appeal-level-3)
    assert member.rpc.query("outcomeLearning.predict", {"caseId": cedar_level_2}).data["action"] == "appeal-level-3"

    # a process without the fitted model re-fits it from the stored outcomes: same answer
    learning.forget_cached()
    again = member.rpc.query("outcomeLearning.predict", {"caseId": cedar_level_2, "action": "appeal-level-1"}).data
    assert again == p

    # outcomeEvaluation: nothing decided since training yet
    early = member.rpc.query("outcomeEvaluation.evaluate", {}).data
    assert (early["n"], early["enough"], early["successRate"], early["brier"]) == (0, False, None, None)
    assert "not enough new outcomes (0)" in early["note"]
    assert member.rpc.query("outcomeEvaluation.calibration", {}).data["deciles"] == []

    # recorded after training but decided before the training day: not new
    plant(services, member, signal, 2, first_day=today - timedelta(days=5))
    assert member.rpc.query("outcomeEvaluation.evaluate", {}).data["n"] == 0
    # 12 appeals decided today, same design (rows 0..11): wins ACME 0, 4, 8; CEDAR 2, 10; DELTA 3, 11 -> 7
    new = plant(services, member, signal, 12, first_day=today, same_day=True)
    ev = member.rpc.query("outcomeEvaluation.evaluate", {}).data
    assert (ev["n"], ev["enough"], ev["source"], ev["modelVersion"]) == (12, True, "model", 1)
    low, high = wilson(7, 12)  # 7/12 = 0.5833, Wilson 95%: 0.3195 .. 0.8067
    assert ev["successRate"]["value"] == pytest.approx(7 / 12)
    assert ev["successRate"]["low"] == pytest.approx(low) and ev["successRate"]["high"] == pytest.approx(high)
    assert ev["realisedRecovery"] == "7000.00"  # 7 wins x $1,000
    # expected recovery = sum of P(success) x $1,000 over the 12, each as predict answers it today
    # (same features: remitted 30 days before today, the level decided)
    levels = [1 + (i // 4) % 2 for i in range(12)]
    ps = [
        member.rpc.query("outcomeLearning.predict", {"caseId": c, "action": f"appeal-level-{lv}"}).data["probability"]
        for c, lv in zip(new, levels, strict=True)
    ]
    assert abs(Decimal(ev["expectedRecovery"]) - Decimal(sum(ps) * 1000)) <= Decimal("0.01")
    assert ev["meanPredicted"] == pytest.approx(sum(ps) / 12)
    assert ev["heldOutBrier"] == out["model"]["brier"]
    assert ev["brierDrift"] == pytest.approx(ev["brier"]["value"] - out["model"]["brier"]["value"])
    cal = member.rpc.query("outcomeEvaluation.calibration", {"version": 1}).data
    assert cal["enough"] is True and sum(b["count"] for b in cal["deciles"]) == 12
    assert sum(round(b["observedRate"] * b["count"]) for b in cal["deciles"]) == 7


def test_pure_noise_does_not_beat_the_prior_and_the_prior_answers(services, make_member, publish):
    member = make_member()
    first = datetime.now(UTC).date() - timedelta(days=100)
    cases = plant(services, member, noise, 60, first_day=first, seed=3)
    publish(member)
    out = member.rpc.mutation("outcomeLearning.train", {}).data
    assert (out["outcomes"], out["heldOutRows"], out["excludedOutcomes"]) == (60, 15, 0)
    assert out["beatsPrior"] is False, out["verdict"]
    p = member.rpc.query("outcomeLearning.predict", {"caseId": cases[0]}).data
    assert (p["source"], p["contributions"]) == ("prior", [])
    assert "payer x category prior answered" in p["why"]
    assert member.rpc.query("outcomeEvaluation.evaluate", {}).data["source"] == "prior"


def test_too_few_outcomes_no_snapshot_and_no_model_are_precondition_failed(services, make_member, publish):
    member = make_member()
    cases = plant(services, member, signal, 39, first_day=datetime.now(UTC).date() - timedelta(days=60))
    no_snapshot = member.rpc.mutation("outcomeLearning.train", {})
    assert no_snapshot.code == "PRECONDITION_FAILED" and "no published snapshot" in no_snapshot.error["message"]
    publish(member)
    few = member.rpc.mutation("outcomeLearning.train", {})
    assert few.code == "PRECONDITION_FAILED" and "at least 40" in few.error["message"], few.body
    none = member.rpc.query("outcomeLearning.predict", {"caseId": cases[0]})
    assert none.code == "PRECONDITION_FAILED" and "outcomeLearning.train" in none.error["message"]
    assert member.rpc.query("outcomeLearning.metrics", {}).code == "PRECONDITION_FAILED"
    assert member.rpc.query("outcomeEvaluation.evaluate", {}).code == "PRECONDITION_FAILED"


def test_another_clients_case_and_model_are_not_found_and_changed_outcomes_refuse(services, make_member, publish):
    a, b = make_member(), make_member()
    first = datetime.now(UTC).date() - timedelta(days=100)
    cases_a = plant(services, a, signal, 60, first_day=first)
    cases_b = plant(services, b, signal, 3, first_day=first)
    publish(a)
    assert a.rpc.mutation("outcomeLearning.train", {}).data["version"] == 1
    assert a.rpc.query("outcomeLearning.predict", {"caseId": cases_b[0]}).code == "NOT_FOUND"
    assert b.rpc.query("outcomeLearning.predict", {"caseId": cases_a[0]}).code == "NOT_FOUND"
    assert b.rpc.query("outcomeLearning.metrics", {"version": 1}).code == "NOT_FOUND"
    assert a.rpc.query("outcomeLearning.metrics", {"version": 2}).code == "NOT_FOUND"
    bad = a.rpc.query("outcomeLearning.predict", {"caseId": cases_a[0], "action": "rebill"})
    assert bad.code == "BAD_REQUEST"
    # a trained case's features change after training: a process without the fitted model cannot
    # reproduce version 1, and says so instead of answering with other numbers
    with services.database.transaction() as db:
        db.get(DenialCase, cases_a[0]).payer_class = "medicare"
    learning.forget_cached()
    stale = a.rpc.query("outcomeLearning.predict", {"caseId": cases_a[0]})
    assert stale.code == "PRECONDITION_FAILED"
    assert "model version 1 was trained on other outcomes; train again" in stale.error["message"]
