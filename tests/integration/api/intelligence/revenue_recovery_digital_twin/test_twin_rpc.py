"""revenueRecoveryDigitalTwin.* over the wire, on SQLite and PostgreSQL.

The history (cases opened by hand on denial dates relative to today, worked through cases.transition,
cases.assign and outcomes.record), all in one payer x category cell:

    case  denied   owner       decided  decision        recovered / at stake
    C1    -60      admin       -50      won             100 / 100
    C2    -58      admin       -45      lost            0 / 150
    C3    -40      specialist  -30      partially_won   50 / 200
    C4    -20      specialist  (open)

Calibrated on 26 weeks ending today, by hand:
- arrivals: 4 cases in 26 weeks = 0.153846 a week;
- success: 2 of 3 decided, Jeffreys Beta(2.5, 1.5), mean 2.5 / 4 = 0.625;
- work days: C1 began on opening (-60) and was decided at -50: 10; C2 waited for the admin's decision of C1
  (-50) and was decided at -45: 5; C3 began on opening (-40), decided at -30: 10; mean 25 / 3 = 8.3333;
- team size 2; recovered share of a success (100/100 + 50/200) / 2 = 0.625;
- backtest: nothing was opened before the last quarter (days -181..-91), so it says so and is not available.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.integration.api.denials.conftest import join_as, open_case


def day(offset: int) -> str:
    return (datetime.now(UTC).date() + timedelta(days=offset)).isoformat()


def worked(rpc, claim: str, amount: str, denied: int, owner: int, decided: int | None, decision: str, got: str):
    case = open_case(rpc, claim, amount, deniedOn=day(denied))
    rpc.mutation("cases.assign", {"id": case["id"], "ownerUserId": owner})
    if decided is not None:
        rpc.mutation("cases.transition", {"id": case["id"], "to": "in_appeal"})
        body = {"caseId": case["id"], "decision": decision, "decidedOn": day(decided), "amountRecovered": got}
        rpc.mutation("outcomes.record", body)
    return case


@pytest.fixture
def history(make_member, services):
    member = make_member(role="admin")
    specialist_id, _ = join_as(member, services, "specialist")
    rpc = member.rpc
    worked(rpc, "TWIN-1", "100.00", -60, member.user_id, -50, "won", "100.00")
    worked(rpc, "TWIN-2", "150.00", -58, member.user_id, -45, "lost", "0.00")
    worked(rpc, "TWIN-3", "200.00", -40, specialist_id, -30, "partially_won", "50.00")
    worked(rpc, "TWIN-4", "80.00", -20, specialist_id, None, "", "0.00")
    return member


def test_build_calibrates_by_hand_figures_and_get_answers_it(history) -> None:
    rpc = history.rpc
    twin = rpc.mutation("revenueRecoveryDigitalTwin.build", {"windowWeeks": 26, "seed": 5}).data
    c = twin["calibration"]
    assert twin["cases"] == 4 and twin["seed"] == 5
    [arrival] = c["arrivals"]
    assert arrival["payer"] == "HAND MANUAL PAYER" and arrival["n"] == 4
    assert arrival["value"] == pytest.approx(4 / 26)
    assert arrival["low"] < arrival["value"] < arrival["high"]
    [success] = c["success"]
    assert (success["n"], success["value"]) == (3, pytest.approx(0.625))
    assert c["workDays"]["value"] == pytest.approx(25 / 3) and c["workDays"]["n"] == 3
    assert c["teamSize"] == 2
    assert list(c["recoveredShare"].values()) == [pytest.approx(0.625)]
    assert "Jeffreys" in success["estimator"] and "Garwood" in arrival["estimator"]
    assert twin["backtest"]["available"] is False and "no case was opened" in twin["backtest"]["reason"]
    assert twin["runs"] == []
    assert rpc.query("revenueRecoveryDigitalTwin.get", {"id": twin["id"]}).data == twin


def test_run_is_reproducible_from_its_seed_and_listed_on_the_twin(history) -> None:
    rpc = history.rpc
    twin = rpc.mutation("revenueRecoveryDigitalTwin.build", {"windowWeeks": 26}).data
    body = {"twinId": twin["id"], "horizonWeeks": 4, "replications": 20, "seed": 42, "staffDelta": 1}
    first = rpc.mutation("revenueRecoveryDigitalTwin.run", body).data
    again = rpc.mutation("revenueRecoveryDigitalTwin.run", body).data
    assert first["forecast"] == again["forecast"] and first["id"] != again["id"]
    f = first["forecast"]
    assert f["staff"] == 3 and len(f["weeks"]) == 4
    for w in f["weeks"]:
        assert w["backlog"]["low"] <= w["backlog"]["mean"] <= w["backlog"]["high"]
    assert first["scenario"] == {"staffDelta": 1, "order": "fifo", "skipCategories": [], "successMultiplier": 1.0}
    runs = rpc.query("revenueRecoveryDigitalTwin.get", {"id": twin["id"]}).data["runs"]
    assert [r["id"] for r in runs] == [again["id"], first["id"]]


def test_another_clients_twin_is_not_found(history, make_member) -> None:
    twin = history.rpc.mutation("revenueRecoveryDigitalTwin.build", {"windowWeeks": 26}).data
    other = make_member(role="admin")
    assert other.rpc.query("revenueRecoveryDigitalTwin.get", {"id": twin["id"]}).code == "NOT_FOUND"
    run = other.rpc.mutation("revenueRecoveryDigitalTwin.run", {"twinId": twin["id"]})
    assert run.code == "NOT_FOUND"


def test_bad_input_and_caps_are_refused(history) -> None:
    rpc = history.rpc
    twin = rpc.mutation("revenueRecoveryDigitalTwin.build", {"windowWeeks": 26}).data
    run = "revenueRecoveryDigitalTwin.run"
    assert rpc.mutation(run, {"twinId": twin["id"], "horizonWeeks": 53}).code == "BAD_REQUEST"
    assert rpc.mutation(run, {"twinId": twin["id"], "replications": 100_000}).code == "BAD_REQUEST"
    assert rpc.mutation("revenueRecoveryDigitalTwin.build", {"windowWeeks": 500}).code == "BAD_REQUEST"
    fewer = rpc.mutation(run, {"twinId": twin["id"], "staffDelta": -2})
    assert fewer.code == "BAD_REQUEST" and "specialists" in fewer.error["message"]
    unknown = rpc.mutation(run, {"twinId": twin["id"], "skipCategories": ["no_such"]})
    assert unknown.code == "BAD_REQUEST" and "no_such" in unknown.error["message"]


def test_no_history_is_a_precondition(make_member) -> None:
    empty = make_member(role="admin")
    got = empty.rpc.mutation("revenueRecoveryDigitalTwin.build", {})
    assert got.code == "PRECONDITION_FAILED" and "no case was opened" in got.error["message"]


def test_a_specialist_may_read_but_not_build(history, services) -> None:
    _, specialist = join_as(history, services, "specialist")
    assert specialist.mutation("revenueRecoveryDigitalTwin.build", {}).code == "FORBIDDEN"
