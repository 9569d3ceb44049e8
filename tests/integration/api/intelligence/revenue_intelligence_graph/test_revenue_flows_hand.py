"""revenueIntelligenceGraph.graph on a hand-written 835 (tests/fixtures/x12/hand/revenue_graph_flows.835,
README "Revenue flow graph"), through the shared hand world's pipeline run, on SQLite and PostgreSQL.

By hand, every initial decision in February 2026:
- HAND FLOW PAYER A, 2026-02-10: FLW-1 paid 100.00, its line HC:71046 denied CO-50 200.00 (medical_necessity);
  FLW-2 denied CLP02=4, its line HC:99213 CO-16 150.00 (missing_information), reversed and paid 150.00 on
  2026-03-20: 150.00 recovered;
- HAND FLOW PAYER B, 2026-02-12: FLW-3 denied CLP02=4 with a claim-level CO-50 80.00 (medical_necessity).
Flows: A -> medical_necessity -> 71046 200.00; A -> missing_information -> 99213 150.00 (recovered 150.00);
B -> medical_necessity -> (claim level) 80.00. Total 430.00 denied, 150.00 recovered, 3 adjustments.
Nodes: A 350.00 (share 350/430), B 80.00; medical_necessity 280.00, missing_information 150.00; 71046 200.00,
99213 150.00, (claim level) 80.00.
maxNodes 6 (two per layer): the services fold: 71046 stays, (other) = 150.00 + 80.00 = 230.00 (2 folded,
recovered 150.00, 2 adjustments). maxNodes 3 (one per layer): every layer is one (other) node of 430.00.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

A, B = "HAND FLOW PAYER A", "HAND FLOW PAYER B"
D = Decimal
FEB = {"fromMonth": "2026-02", "toMonth": "2026-02"}


@before_shared_run
def flows_world_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post("revenue_graph_flows.835")
    assert [b["status"] for b in batches] == ["confirmed"], batches


@pytest.fixture(scope="module")
def flows_world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(flows_world_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def _graph(world, **extra):
    return world.rpc.query("revenueIntelligenceGraph.graph", {**FEB, **extra}).data


def _nodes(answer) -> list[tuple[str, Decimal, Decimal, int, int, int]]:
    return [
        (n["id"], D(n["denied"]), D(n["recovered"]), n["adjustments"], n["inDegree"], n["outDegree"])
        for n in answer["nodes"]
    ]


def _edges(answer) -> list[tuple[str, str, Decimal]]:
    return [(e["source"], e["target"], D(e["denied"])) for e in answer["edges"]]


def test_the_payer_category_service_flows_of_the_month(flows_world):
    answer = _graph(flows_world)
    assert answer["snapshot"]["builtAt"]
    assert _nodes(answer) == [
        (f"payer:{A}", D("350"), D("150"), 2, 0, 2),
        (f"payer:{B}", D("80"), D("0"), 1, 0, 1),
        ("category:medical_necessity", D("280"), D("0"), 2, 2, 2),
        ("category:missing_information", D("150"), D("150"), 1, 1, 1),
        ("service:71046", D("200"), D("0"), 1, 1, 0),
        ("service:99213", D("150"), D("150"), 1, 1, 0),
        ("service:(claim level)", D("80"), D("0"), 1, 1, 0),
    ]
    assert answer["nodes"][0]["share"] == pytest.approx(350 / 430)
    assert sorted(_edges(answer)) == sorted(
        [
            (f"payer:{A}", "category:medical_necessity", D("200")),
            (f"payer:{A}", "category:missing_information", D("150")),
            (f"payer:{B}", "category:medical_necessity", D("80")),
            ("category:medical_necessity", "service:71046", D("200")),
            ("category:missing_information", "service:99213", D("150")),
            ("category:medical_necessity", "service:(claim level)", D("80")),
        ]
    )
    total = answer["total"]
    assert (D(total["denied"]), D(total["recovered"]), total["adjustments"]) == (D("430"), D("150"), 3)
    assert answer["folded"] == {"payer": 0, "category": 0, "service": 0} and answer["flowsTruncated"] is False


def test_folding_keeps_the_heaviest_and_conserves_the_money(flows_world):
    six = _graph(flows_world, maxNodes=6)
    services = [n for n in six["nodes"] if n["layer"] == "service"]
    assert [(n["name"], D(n["denied"]), D(n["recovered"]), n["adjustments"], n["folded"]) for n in services] == [
        ("71046", D("200"), D("0"), 1, 0),
        ("(other)", D("230"), D("150"), 2, 2),
    ]
    assert six["folded"] == {"payer": 0, "category": 0, "service": 2}
    into_services = sum(D(e["denied"]) for e in six["edges"] if e["target"].startswith("service:"))
    out_of_payers = sum(D(e["denied"]) for e in six["edges"] if e["source"].startswith("payer:"))
    assert into_services == out_of_payers == D("430")
    three = _graph(flows_world, maxNodes=3)
    assert _nodes(three) == [
        ("payer:(other)", D("430"), D("150"), 3, 0, 1),
        ("category:(other)", D("430"), D("150"), 3, 1, 1),
        ("service:(other)", D("430"), D("150"), 3, 1, 0),
    ]
    assert three["folded"] == {"payer": 2, "category": 2, "service": 3}


def test_months_narrow_and_another_tenant_sees_nothing(flows_world):
    march = flows_world.rpc.query("revenueIntelligenceGraph.graph", {"fromMonth": "2026-03"}).data
    assert march["nodes"] == [] and march["edges"] == [] and D(march["total"]["denied"]) == 0
    other = flows_world.as_tenant(flows_world.add_tenant("Flows other"))
    empty = other.rpc.query("revenueIntelligenceGraph.graph", {}).data
    assert empty["nodes"] == [] and D(empty["total"]["denied"]) == 0


def test_bad_input_is_refused(flows_world):
    for bad in (
        {"maxNodes": 201},
        {"maxNodes": 2},
        {"maxNodes": 10**12},
        {"fromMonth": "2026-05", "toMonth": "2026-01"},
        {"fromMonth": "2026-13"},
        {"extra": 1},
    ):
        assert flows_world.rpc.query("revenueIntelligenceGraph.graph", bad).code == "BAD_REQUEST", bad
