"""Breadth-first search over links (pure, on an in-memory graph)."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from api.evidence.evidence_graph.bfs import shortest_path

EDGES = {
    ("document", 1): [("case", 10), ("claim", 20)],
    ("document", 2): [("claim", 20), ("appeal_packet", 30)],
    ("document", 3): [("appeal_packet", 30)],
    ("case", 10): [("document", 1)],
    ("claim", 20): [("document", 1), ("document", 2)],
    ("appeal_packet", 30): [("document", 2), ("document", 3)],
    ("case", 11): [],
}


def nb(node):
    return EDGES.get(node, [])


def test_shortest_path_through_documents_and_targets():
    assert shortest_path(("case", 10), ("document", 3), nb) == [
        ("case", 10),
        ("document", 1),
        ("claim", 20),
        ("document", 2),
        ("appeal_packet", 30),
        ("document", 3),
    ]


def test_same_node_and_unreachable():
    assert shortest_path(("case", 10), ("case", 10), nb) == [("case", 10)]
    assert shortest_path(("case", 10), ("case", 11), nb) is None


def test_depth_bound():
    assert shortest_path(("case", 10), ("document", 3), nb, max_depth=4) is None
    assert shortest_path(("case", 10), ("document", 3), nb, max_depth=5) is not None


def test_node_bound_stops_the_search():
    def endless(node):
        kind, ident = node
        return [(kind, ident * 2), (kind, ident * 2 + 1)]

    assert shortest_path(("case", 1), ("case", -1), endless, max_depth=10, max_nodes=100) is None


@given(
    st.dictionaries(st.integers(0, 15), st.lists(st.integers(0, 15), max_size=4), max_size=16),
    st.integers(0, 15),
    st.integers(0, 15),
)
def test_paths_are_real_and_shortest(adjacency, start, goal):
    graph: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for a, bs in adjacency.items():
        for b in bs:
            graph.setdefault(("n", a), set()).add(("n", b))
            graph.setdefault(("n", b), set()).add(("n", a))

    def neighbours(node):
        return sorted(graph.get(node, ()))

    found = shortest_path(("n", start), ("n", goal), neighbours, max_depth=20)
    # reference: plain BFS distances
    dist = {("n", start): 0}
    queue = [("n", start)]
    for node in queue:
        for nxt in neighbours(node):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    if ("n", goal) not in dist:
        assert found is None
        return
    assert found is not None and found[0] == ("n", start) and found[-1] == ("n", goal)
    assert len(found) - 1 == dist[("n", goal)]
    assert all(b in graph.get(a, ()) for a, b in itertools.pairwise(found))
