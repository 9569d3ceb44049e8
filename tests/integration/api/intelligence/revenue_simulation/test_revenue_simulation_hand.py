"""revenueSimulation.simulate and .get on a hand-written 835 (tests/fixtures/x12/hand/revenue_simulation.835,
README "Revenue simulation") through the shared hand world's pipeline build, on SQLite and PostgreSQL.

By hand, the rows (claim x payer; paid, initial denied, recovered):
  SIM-1 HAND SIM PAYER   0.00 paid, 200.00 denied CO-197 (authorization), nothing back
  SIM-2 HAND SIM PAYER 400.00 paid, 400.00 denied CO-197 (authorization), overturned 2026-03-16: 400.00 back,
        60 days after its denial of 2026-01-15
  SIM-3 HAND SIM PAYER 1,000.00 paid, not denied
  SIM-4 HAND SIM PAYER   0.00 paid, 100.00 denied CO-50 (medical necessity)
  SIM-5 HAND SIM OTHER   0.00 paid, 250.00 denied CO-197 (authorization)
Baseline revenue 1,400.00 (5 rows).
- prevention, authorization, share 0.5: SIM-1 0.5 x 200 = 100.00, SIM-2 0.5 x 400 x (1 - 400/400) = 0,
  SIM-5 0.5 x 250 = 125.00 -> effect 225.00, scenario 1,625.00; HAND SIM PAYER alone: 4 rows, 100.00.
- prevention, CARC 50, share 1: SIM-4 100.00.
- HAND SIM OTHER alone (1 row), authorization share 0.4: 0.4 x 250 = 100.00, and every resample is that one
  row: the interval is exactly 100.00 to 100.00.
- strategy HAND SIM PAYER x authorization: p = 1 overturned of 2 = 1/2; appeal SIM-1: 0.5 x 200 - 60.00
  (the first-level appeal's 1.5 h x 40.00) = 40.00; at 100.00 an appeal: 0.00; write off: SIM-2's 400.00
  forgone, 60.00 saved = -340.00.
- rule HAND SIM PAYER appeal limit 59 days: SIM-2 (60 days) lost = -400.00; 60 days: 0.00.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

D = Decimal
PAYER = "HAND SIM PAYER"
OTHER = "HAND SIM OTHER"
AUTH = {"kind": "prevention", "category": "authorization", "share": 0.5}


@before_shared_run
def simulation_world_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post("revenue_simulation.835")
    assert [b["status"] for b in batches] == ["confirmed"], batches


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(simulation_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def simulate(world, scenario, **extra):
    return world.rpc.mutation("revenueSimulation.simulate", {"scenario": scenario, "seed": 2026, **extra})


def figures(answer):
    keys = ("baselineRevenue", "scenarioRevenue", "effect", "effectLow", "effectHigh")
    return [D(answer[k]) for k in keys]


def test_preventing_half_the_authorization_denials(world):
    answer = simulate(world, AUTH).data
    assert answer["rows"] == 5
    base, scenario, effect, low, high = figures(answer)
    assert (base, scenario, effect) == (D("1400.00"), D("1625.00"), D("225.00"))
    assert low <= effect <= high and low >= 0 and high <= D("625.00")  # at most: SIM-5 drawn 5 times, 5 x 125.00
    assert answer["seed"] == 2026 and answer["replications"] == 1000
    assert answer["snapshot"]["id"] and answer["snapshot"]["builtAt"] and answer["snapshot"]["runId"]
    only = simulate(world, AUTH, payer=PAYER.lower()).data
    assert (only["rows"], D(only["effect"]), D(only["baselineRevenue"])) == (4, D("100.00"), D("1400.00"))


def test_the_same_seed_gives_the_same_interval_and_get_answers_it_again(world):
    first = simulate(world, AUTH).data
    again = simulate(world, AUTH).data
    assert figures(first) == figures(again) and first["id"] != again["id"]
    stored = world.rpc.query("revenueSimulation.get", {"id": first["id"]}).data
    assert stored == first
    drawn = world.rpc.mutation("revenueSimulation.simulate", {"scenario": AUTH}).data
    assert isinstance(drawn["seed"], int)  # drawn and stored: a rerun with it gives the same interval
    rerun = simulate(world, AUTH, seed=drawn["seed"]).data
    assert figures(rerun) == figures(drawn)


def test_one_row_has_an_exact_interval_and_nothing_prevented_is_zero(world):
    one = simulate(world, {"kind": "prevention", "category": "authorization", "share": 0.4}, payer=OTHER).data
    assert one["rows"] == 1
    assert figures(one) == [D("0.00"), D("100.00"), D("100.00"), D("100.00"), D("100.00")]
    none = simulate(world, {**AUTH, "share": 0}).data
    assert figures(none)[2:] == [D("0.00"), D("0.00"), D("0.00")]
    carc = simulate(world, {"kind": "prevention", "carc": "50", "share": 1}).data
    assert D(carc["effect"]) == D("100.00")


def test_strategies_of_a_payer_and_category(world):
    cell = {"kind": "strategy", "payer": PAYER, "category": "authorization"}
    appeal = simulate(world, {**cell, "action": "appeal"}).data
    assert D(appeal["effect"]) == D("40.00")
    assert D(simulate(world, {**cell, "action": "appeal", "costPerAppeal": "100.00"}).data["effect"]) == D("0.00")
    write_off = simulate(world, {**cell, "action": "write_off"}).data
    assert (D(write_off["effect"]), D(write_off["scenarioRevenue"])) == (D("-340.00"), D("1060.00"))


def test_a_shorter_appeal_limit(world):
    rule = {"kind": "rule", "payer": PAYER}
    assert D(simulate(world, {**rule, "appealLimitDays": 59}).data["effect"]) == D("-400.00")
    assert D(simulate(world, {**rule, "appealLimitDays": 60}).data["effect"]) == D("0.00")


def test_months_narrow_the_history(world):
    feb = simulate(world, AUTH, fromMonth="2026-02", toMonth="2026-02").data
    assert (feb["rows"], D(feb["effect"]), feb["fromMonth"]) == (1, D("125.00"), "2026-02")


def test_bad_input_is_refused(world):
    for body in (
        {"scenario": AUTH, "replications": 5000},
        {"scenario": {**AUTH, "share": 1.5}},
        {"scenario": {**AUTH, "carc": "50"}},
        {"scenario": {"kind": "prevention", "share": 0.5}},
        {"scenario": {"kind": "rule", "payer": PAYER, "appealLimitDays": 0}},
        {"scenario": {"kind": "guess"}},
        {"scenario": AUTH, "seed": 2**32},
        {"scenario": AUTH, "fromMonth": "2010-01", "toMonth": "2026-01"},
    ):
        bad = world.rpc.mutation("revenueSimulation.simulate", body)
        assert bad.code == "BAD_REQUEST", (body, bad.body)


def test_too_many_rows_are_refused_before_running(world, monkeypatch):
    from api.intelligence.revenue_simulation import procedures

    monkeypatch.setattr(procedures, "MAX_ROWS", 4)
    refused = simulate(world, AUTH)
    assert refused.code == "BAD_REQUEST" and "narrow fromMonth/toMonth or payer" in refused.body["error"]["message"]


def test_another_clients_simulation_is_not_found(world):
    mine = simulate(world, AUTH).data
    other = world.add_tenant("SimOther")
    assert other.rpc.query("revenueSimulation.get", {"id": mine["id"]}).code == "NOT_FOUND"
    assert world.rpc.query("revenueSimulation.get", {"id": 987654321}).code == "NOT_FOUND"
