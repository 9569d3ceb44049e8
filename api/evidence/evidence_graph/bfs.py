"""Breadth-first search over the evidence links (pure: the neighbours come from a function).

A node is (kind, id): a document, or the case, claim or appeal packet it is linked to. The graph is
bipartite (documents on one side), so a path alternates document / target. The search stops at
`max_depth` hops and after visiting `max_nodes` nodes, so its cost is bounded whatever the data.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

Node = tuple[str, int]
MAX_DEPTH = 10
MAX_NODES = 5_000


def shortest_path(
    start: Node,
    goal: Node,
    neighbours: Callable[[Node], Iterable[Node]],
    *,
    max_depth: int = 6,
    max_nodes: int = MAX_NODES,
) -> list[Node] | None:
    """The shortest path from `start` to `goal` (both included) within `max_depth` hops, else None.
    Ties are broken by the order `neighbours` gives."""
    if start == goal:
        return [start]
    parents: dict[Node, Node | None] = {start: None}
    frontier: deque[tuple[Node, int]] = deque([(start, 0)])
    while frontier:
        node, depth = frontier.popleft()
        if depth >= max_depth:
            continue
        for nxt in neighbours(node):
            if nxt in parents:
                continue
            parents[nxt] = node
            if nxt == goal:
                return _walk_back(parents, goal)
            if len(parents) >= max_nodes:
                return None
            frontier.append((nxt, depth + 1))
    return None


def _walk_back(parents: dict[Node, Node | None], goal: Node) -> list[Node]:
    path: list[Node] = []
    node: Node | None = goal
    while node is not None:
        path.append(node)
        node = parents[node]
    return path[::-1]
