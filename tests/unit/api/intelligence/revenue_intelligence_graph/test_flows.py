"""The bounded payer -> category -> service graph (pure): figures written by hand; Hypothesis for the
invariants (folding conserves every total, never exceeds the cap, keeps the heaviest)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from api.intelligence.revenue_intelligence_graph.flows import LAYERS, MAX_NODES, OTHER, Flow, bound, serialise

D = Decimal


def _flows() -> list[Flow]:
    return [
        Flow("P1", "medical_necessity", "71046", D("200.00"), D("0.00"), 1),
        Flow("P1", "missing_information", "99213", D("150.00"), D("150.00"), 1),
        Flow("P2", "medical_necessity", "(claim level)", D("80.00"), D("0.00"), 1),
        Flow("P3", "authorization", "99213", D("10.00"), D("5.00"), 2),
    ]


def test_an_unbounded_graph_sums_each_node_and_edge():
    nodes, edges = serialise(bound(_flows(), 60))
    got = {n["id"]: (n["denied"], n["recovered"], n["adjustments"], n["in_degree"], n["out_degree"]) for n in nodes}
    assert got == {
        "payer:P1": (D("350.00"), D("150.00"), 2, 0, 2),
        "payer:P2": (D("80.00"), D("0.00"), 1, 0, 1),
        "payer:P3": (D("10.00"), D("5.00"), 2, 0, 1),
        "category:medical_necessity": (D("280.00"), D("0.00"), 2, 2, 2),
        "category:missing_information": (D("150.00"), D("150.00"), 1, 1, 1),
        "category:authorization": (D("10.00"), D("5.00"), 2, 1, 1),
        "service:71046": (D("200.00"), D("0.00"), 1, 1, 0),
        "service:99213": (D("160.00"), D("155.00"), 3, 2, 0),
        "service:(claim level)": (D("80.00"), D("0.00"), 1, 1, 0),
    }
    # layer by layer, heaviest first
    assert [n["id"] for n in nodes][:3] == ["payer:P1", "payer:P2", "payer:P3"]
    assert nodes[0]["share"] == float(D("350") / D("440"))
    # heaviest first; the two 200.00 edges tie and are ordered by source id
    assert [(e["source"], e["target"], e["denied"]) for e in edges[:2]] == [
        ("category:medical_necessity", "service:71046", D("200.00")),
        ("payer:P1", "category:medical_necessity", D("200.00")),
    ]
    assert len(edges) == 8  # P1->mn, P1->mi, P2->mn, P3->auth; mn->71046, mi->99213, mn->claim, auth->99213


def test_a_cap_of_six_keeps_one_heaviest_per_crowded_layer_and_folds_the_rest():
    bounded = bound(_flows(), 6)
    nodes, _ = serialise(bounded)
    assert [(n["id"], n["denied"], n["folded"]) for n in nodes] == [
        ("payer:P1", D("350.00"), 0),
        ("payer:(other)", D("90.00"), 2),
        ("category:medical_necessity", D("280.00"), 0),
        ("category:(other)", D("160.00"), 2),
        ("service:71046", D("200.00"), 0),
        ("service:(other)", D("240.00"), 2),
    ]
    assert bounded.folded == {"payer": 2, "category": 2, "service": 2}


def test_ties_are_broken_by_name_and_an_empty_input_is_an_empty_graph():
    tied = [Flow("B", "c", "s", D("1.00")), Flow("A", "c", "s", D("1.00")), Flow("C", "c", "s", D("1.00"))]
    nodes, _ = serialise(bound(tied, 6))
    assert [n["name"] for n in nodes if n["layer"] == "payer"] == ["A", OTHER]
    empty = bound([], 60)
    assert serialise(empty) == ([], []) and empty.total.denied == D("0.00")


def test_the_cap_is_clamped_to_the_wire_bounds():
    many = [Flow(f"P{i}", f"c{i}", f"s{i}", D(i + 1)) for i in range(400)]
    assert bound(many, 10**9).graph.number_of_nodes() == (MAX_NODES // 3) * 3
    assert bound(many, 0).graph.number_of_nodes() == 3


money = st.decimals(min_value=0, max_value=100_000, places=2, allow_nan=False, allow_infinity=False)
flow = st.builds(
    Flow,
    st.sampled_from([f"P{i}" for i in range(12)]),
    st.sampled_from([f"c{i}" for i in range(9)]),
    st.sampled_from([f"s{i}" for i in range(30)]),
    money,
    money,
    st.integers(min_value=1, max_value=50),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(flow, max_size=120), st.integers(min_value=3, max_value=MAX_NODES))
def test_folding_conserves_every_total_and_never_exceeds_the_cap(flows, cap):
    bounded = bound(flows, cap)
    g = bounded.graph
    assert g.number_of_nodes() <= cap
    total = sum((f.denied for f in flows), D("0"))
    recovered = sum((f.recovered for f in flows), D("0"))
    assert bounded.total.denied == total and bounded.total.recovered == recovered
    for layer in LAYERS:
        mine = [a["fig"] for _, a in g.nodes(data=True) if a["layer"] == layer]
        assert sum((f.denied for f in mine), D("0")) == total
        assert sum((f.recovered for f in mine), D("0")) == recovered
        assert sum(f.adjustments for f in mine) == sum(f.adjustments for f in flows)
        assert len(mine) <= cap // 3
    out_of_payers = sum((a["fig"].denied for s, _, a in g.edges(data=True) if s.startswith("payer:")), D("0"))
    into_services = sum((a["fig"].denied for _, t, a in g.edges(data=True) if t.startswith("service:")), D("0"))
    assert out_of_payers == into_services == total
    # every category passes on exactly what it receives
    for n, a in g.nodes(data=True):
        if a["layer"] == "category":
            assert sum(g.edges[p, n]["fig"].denied for p in g.predecessors(n)) == sum(
                g.edges[n, s]["fig"].denied for s in g.successors(n)
            )


@settings(max_examples=100, deadline=None)
@given(st.lists(flow, min_size=1, max_size=120), st.integers(min_value=6, max_value=60))
def test_a_kept_node_is_never_lighter_than_a_folded_one(flows, cap):
    g = bound(flows, cap).graph
    for layer in LAYERS:
        weight: dict[str, Decimal] = {}
        for f in flows:
            weight[getattr(f, layer)] = weight.get(getattr(f, layer), D("0")) + f.denied
        kept = {a["name"] for _, a in g.nodes(data=True) if a["layer"] == layer and a["name"] != OTHER}
        folded = set(weight) - kept
        if kept and folded:
            assert min(weight[k] for k in kept) >= max(weight[f] for f in folded)
