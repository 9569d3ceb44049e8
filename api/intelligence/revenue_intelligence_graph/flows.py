"""The payer -> denial category -> service graph of denied revenue, bounded in size (pure: flows in, a
networkx DiGraph and its wire form out).

A flow is the denied money of one (payer, category, service) cell: its amount (the weight), the
adjustments it counts and what the payer's overturns recovered of it. The graph is tripartite: each
flow adds its figures to the edge payer -> category and to the edge category -> service, so every
category passes on exactly what it receives, and the sum out of the payers equals the sum into the
services equals the total.

Bounding: each layer keeps at most `max_nodes // 3` nodes. A layer with more keeps its heaviest
`max_nodes // 3 - 1` (by denied amount, then by name) and folds the rest into ONE `other` node of that
layer before the edges are summed, so folding moves money between nodes, never out of the graph: totals
are conserved and the node count never exceeds `max_nodes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise
from typing import Any

import networkx as nx

LAYERS = ("payer", "category", "service")
#: the most nodes an answer may have (the wire caps maxNodes here)
MAX_NODES = 200
MIN_NODES = len(LAYERS)
OTHER = "(other)"
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Flow:
    payer: str
    category: str
    service: str
    denied: Decimal
    recovered: Decimal = ZERO
    adjustments: int = 1


@dataclass
class Figures:
    denied: Decimal = ZERO
    recovered: Decimal = ZERO
    adjustments: int = 0

    def add(self, flow: Flow) -> None:
        self.denied += flow.denied
        self.recovered += flow.recovered
        self.adjustments += flow.adjustments


@dataclass(frozen=True)
class Bounded:
    graph: Any  # networkx.DiGraph; nodes "layer:name" with layer, name, folded, denied, recovered, adjustments
    total: Figures
    folded: dict[str, int] = field(default_factory=dict)  # layer -> how many of its names went into `other`


def node_id(layer: str, name: str) -> str:
    return f"{layer}:{name}"


def _kept(flows: Sequence[Flow], layer: str, per_layer: int) -> tuple[set[str], int]:
    """The names of the layer shown as themselves, and how many are folded into `other`."""
    weight: dict[str, Decimal] = {}
    for f in flows:
        name = getattr(f, layer)
        weight[name] = weight.get(name, ZERO) + f.denied
    if len(weight) <= per_layer:
        return set(weight), 0
    heaviest = sorted(weight, key=lambda n: (-weight[n], n))[: per_layer - 1]
    return set(heaviest), len(weight) - len(heaviest)


def bound(flows: Iterable[Flow], max_nodes: int = MAX_NODES) -> Bounded:
    """The tripartite graph of the flows with at most `max_nodes` nodes (clamped to 3..MAX_NODES)."""
    given = [f for f in flows if f.denied or f.recovered or f.adjustments]
    per_layer = max(MIN_NODES, min(max_nodes, MAX_NODES)) // len(LAYERS)
    kept: dict[str, set[str]] = {}
    folded: dict[str, int] = {}
    for layer in LAYERS:
        kept[layer], folded[layer] = _kept(given, layer, per_layer)

    def shown(layer: str, name: str) -> str:
        return node_id(layer, name if name in kept[layer] else OTHER)

    graph = nx.DiGraph()
    total = Figures()
    for f in given:
        total.add(f)
        ends = [shown(layer, getattr(f, layer)) for layer in LAYERS]
        for layer, end in zip(LAYERS, ends, strict=True):
            if end not in graph:
                name = end.split(":", 1)[1]
                graph.add_node(end, layer=layer, name=name, folded=folded[layer] if name == OTHER else 0, fig=Figures())
            graph.nodes[end]["fig"].add(f)
        for source, target in pairwise(ends):
            if not graph.has_edge(source, target):
                graph.add_edge(source, target, fig=Figures())
            graph.edges[source, target]["fig"].add(f)
    return Bounded(graph, total, folded)


def _share(part: Decimal, whole: Decimal) -> float:
    return float(part / whole) if whole else 0.0


def serialise(bounded: Bounded) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Nodes (layer by layer, heaviest first; `other` last in its layer) with their figures, their share of
    the total denied amount and their degree, and edges (source, target, figures), heaviest first."""
    g, total = bounded.graph, bounded.total.denied

    def order(n: str) -> tuple[int, bool, Decimal, str]:
        a = g.nodes[n]
        return LAYERS.index(a["layer"]), a["name"] == OTHER, -a["fig"].denied, a["name"]

    nodes = [
        {
            "id": n,
            "layer": g.nodes[n]["layer"],
            "name": g.nodes[n]["name"],
            "folded": g.nodes[n]["folded"],
            **vars(g.nodes[n]["fig"]),
            "share": _share(g.nodes[n]["fig"].denied, total),
            "in_degree": g.in_degree(n),
            "out_degree": g.out_degree(n),
        }
        for n in sorted(g.nodes, key=order)
    ]
    edges = [
        {"source": s, "target": t, **vars(a["fig"]), "share": _share(a["fig"].denied, total)}
        for s, t, a in sorted(g.edges(data=True), key=lambda e: (-e[2]["fig"].denied, e[0], e[1]))
    ]
    return nodes, edges
