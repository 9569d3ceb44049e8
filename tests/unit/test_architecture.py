"""The import graph, built from the source, keeps the architecture of docs/architecture.md.

Nodes are packages at the granularity a newcomer reasons about: `api.core`,
`api.rpc`, each `api.<context>.<namespace>` and `api.infra.<package>`, each
`pipelines.<package>`, and `launcher`. Imports inside functions count;
imports under `if TYPE_CHECKING:` do not (they never run).
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import grimp
import pytest

from api.discovery import CONTEXTS, INFRASTRUCTURE

GROUPED = {*CONTEXTS, INFRASTRUCTURE}


def node(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "api" and len(parts) >= 3 and parts[1] in GROUPED:
        return ".".join(parts[:3])
    if parts[0] in ("api", "pipelines"):
        return ".".join(parts[:2])
    return parts[0]


@lru_cache(maxsize=1)
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("api", "pipelines", "launcher", exclude_type_checking_imports=True)


@lru_cache(maxsize=1)
def module_edges() -> list[tuple[str, str]]:
    g = graph()
    return [(m, i) for m in sorted(g.modules) for i in sorted(g.find_modules_directly_imported_by(m))]


def package_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for importer, imported in module_edges():
        a, b = node(importer), node(imported)
        if a != b:
            edges[a].add(b)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def offending(predicate) -> list[str]:
    return [f"{a} -> {b}" for a, b in module_edges() if predicate(a, b)]


def test_the_cycle_finder_finds_a_planted_cycle():
    # The check below is only as good as this function: prove it sees a cycle and a clean graph.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []


def test_no_cycle_between_packages():
    assert cycles(package_edges()) == [], "import cycles between packages (see docs/architecture.md)"


def test_pipelines_never_imports_api_or_launcher():
    assert offending(lambda a, b: a.startswith("pipelines") and b.split(".")[0] in ("api", "launcher")) == []


def test_parsers_are_pure():
    # pipelines.ingest holds pure parsers: no Dagster, no database, no API.
    bad = ("dagster", "dagster_dbt", "sqlalchemy.orm", "api", "launcher")
    assert offending(lambda a, b: a.startswith("pipelines.ingest") and b.split(".")[0] in bad) == []


def test_api_never_imports_launcher():
    assert offending(lambda a, b: a.startswith("api") and b.startswith("launcher")) == []


def test_core_depends_on_nothing_else_in_api():
    assert (
        offending(lambda a, b: a.startswith("api.core") and b.startswith("api.") and not b.startswith("api.core")) == []
    )


def test_rpc_layer_imports_no_domain():
    # The executor receives resolvers and the audit sink from the services instead.
    domains = tuple(f"api.{c}" for c in CONTEXTS)
    assert offending(lambda a, b: a.startswith("api.rpc") and b.startswith(domains)) == []


def test_only_the_rpc_layer_speaks_trpc():
    # Domain code raises api.core.errors; api.rpc.errors maps them to tRPC codes in one place.
    assert offending(lambda a, b: b == "api.rpc.errors" and not a.startswith("api.rpc")) == []


@pytest.mark.parametrize("context", [*CONTEXTS, INFRASTRUCTURE])
def test_contexts_hold_namespace_packages_not_loose_modules(context):
    g = graph()
    members = {m for m in g.modules if m.startswith(f"api.{context}.") and m.count(".") == 2}
    loose = sorted(m for m in members if not g.find_children(m))
    # infra may hold single-module infrastructure (the access log, the security headers middleware, the
    # owner-only file modes);
    # contexts hold namespaces only.
    allowed = {"api.infra.access_log", "api.infra.security_headers", "api.infra.private_files"}
    assert [m for m in loose if m not in allowed] == [], f"api.{context} must hold one package per namespace"
