"""The import graph, built from the source, keeps the architecture of docs/architecture.md.

Two granularities of node, both free of cycles:

- packages as a newcomer reasons about them: `api.core`, `api.rpc`, each
  `api.<context>.<namespace>` and `api.infra.<package>`, each `pipelines.<package>`, and `launcher`;
- folders: every directory is a node holding its own modules, so a root package's modules are one
  node (`api/app.py` and `api/main.py` are `api`; `pipelines/runner.py` is `pipelines`) and
  every sub-folder (`pipelines/ingest/tabular`) is its own.

Imports inside functions count, and so do imports under `if TYPE_CHECKING:`: a type-only import
still ties the importer to what it names (the core typed by infrastructure is not independent of
it). The checks are proven on planted violations: tiny real packages written to a temporary folder
and graphed by grimp with the same functions.
"""

from __future__ import annotations

import importlib.util
import textwrap
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from pathlib import Path

import grimp
import pytest

from api.infra.discovery.namespaces import CONTEXTS, INFRASTRUCTURE

GROUPED = {*CONTEXTS, INFRASTRUCTURE}


def node(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "api" and len(parts) >= 3 and parts[1] in GROUPED:
        return ".".join(parts[:3])
    if parts[0] in ("api", "pipelines"):
        return ".".join(parts[:2])
    return parts[0]


def build_graph(*packages: str) -> grimp.ImportGraph:
    """The import graph of `packages` (importable from sys.path), type-only imports included."""
    return grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)


@lru_cache(maxsize=1)
def graph() -> grimp.ImportGraph:
    return build_graph("api", "pipelines", "launcher")


def edges_of(g: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Every direct import between the graph's modules (importer, imported)."""
    return [(m, i) for m in sorted(g.modules) for i in sorted(g.find_modules_directly_imported_by(m))]


@lru_cache(maxsize=1)
def module_edges() -> list[tuple[str, str]]:
    return edges_of(graph())


def grouped(edges: Iterable[tuple[str, str]], node_of: Callable[[str], str]) -> dict[str, set[str]]:
    """The edges between nodes (`node_of` maps a module to its node), self-edges dropped."""
    grouped_edges: dict[str, set[str]] = defaultdict(set)
    for importer, imported in edges:
        a, b = node_of(importer), node_of(imported)
        if a != b:
            grouped_edges[a].add(b)
    return grouped_edges


def package_edges() -> dict[str, set[str]]:
    return grouped(module_edges(), node)


@cache
def is_package(module: str) -> bool:
    """Whether `module` is a folder (a package), read from the file system under its root package."""
    root, *rest = module.split(".")
    spec = importlib.util.find_spec(root)
    assert spec is not None and spec.submodule_search_locations, root
    return Path(next(iter(spec.submodule_search_locations)), *rest).is_dir()


def folder(module: str) -> str:
    """The folder holding a module: a package is its own folder, a module file is its parent's."""
    return module if is_package(module) else module.rpartition(".")[0]


def folder_edges(edges: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    return grouped(edges, folder)


def core_offences(edges: Iterable[tuple[str, str]], root: str, core: str) -> list[str]:
    """Imports from the core package into anything else of its root package."""
    return [
        f"{a} -> {b}"
        for a, b in edges
        if (a == core or a.startswith(core + "."))
        and b.startswith(root + ".")
        and not (b == core or b.startswith(core + "."))
    ]


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


def test_no_cycle_between_folders():
    # Finer than packages: a root package's own modules (the composition root, discovery, the
    # pipeline runner) and each sub-folder are nodes, so a sub-package importing its root is seen.
    assert cycles(folder_edges(module_edges())) == [], "import cycles between folders (see docs/architecture.md)"


def test_pipelines_never_imports_api_or_launcher():
    assert offending(lambda a, b: a.startswith("pipelines") and b.split(".")[0] in ("api", "launcher")) == []


def test_parsers_are_pure():
    # pipelines.ingest holds pure parsers: no Dagster, no database, no API.
    bad = ("dagster", "dagster_dbt", "sqlalchemy.orm", "api", "launcher")
    assert offending(lambda a, b: a.startswith("pipelines.ingest") and b.split(".")[0] in bad) == []


def test_api_never_imports_launcher():
    assert offending(lambda a, b: a.startswith("api") and b.startswith("launcher")) == []


def test_core_depends_on_nothing_else_in_api():
    # Type-only imports included: the core names no infrastructure or platform type either.
    assert core_offences(module_edges(), "api", "api.core") == []


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


def plant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    """Write a tiny package tree (path -> source; every folder gets an __init__.py) and put it on
    sys.path, for grimp to graph as it graphs the project."""
    for relative, source in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(tmp_path).parents:
            if parent != Path("."):
                (tmp_path / parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    is_package.cache_clear()  # planted roots are new folders


def test_a_type_only_import_from_the_core_into_infra_breaks_the_core_rule(tmp_path, monkeypatch):
    plant(
        tmp_path,
        monkeypatch,
        {
            "plantedcore/core/services.py": """
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from plantedcore.infra.db import Database
            """,
            "plantedcore/infra/db.py": "import plantedcore.core.services\n",
        },
    )
    edges = edges_of(build_graph("plantedcore"))
    assert core_offences(edges, "plantedcore", "plantedcore.core") == [
        "plantedcore.core.services -> plantedcore.infra.db"
    ]
    assert cycles(folder_edges(edges)) == [["plantedcore.core", "plantedcore.infra"]]


def test_a_cycle_through_a_root_module_is_found(tmp_path, monkeypatch):
    # root/app.py -> root/sub/x.py -> root/discovery.py: the package nodes would not see it (the root's
    # modules are not a package node of their own there); the folder nodes do.
    plant(
        tmp_path,
        monkeypatch,
        {
            "plantedroot/app.py": "from plantedroot.sub import x\n",
            "plantedroot/sub/x.py": "def f():\n    from plantedroot import discovery\n",
            "plantedroot/discovery.py": "",
        },
    )
    edges = edges_of(build_graph("plantedroot"))
    assert cycles(grouped(edges, node)) == []  # one node "plantedroot" at the package granularity
    assert cycles(folder_edges(edges)) == [["plantedroot", "plantedroot.sub"]]


def test_a_clean_tree_passes(tmp_path, monkeypatch):
    plant(
        tmp_path,
        monkeypatch,
        {
            "plantedclean/app.py": "from plantedclean.sub import x\nfrom plantedclean.core import errors\n",
            "plantedclean/sub/x.py": "from plantedclean.core import errors\nfrom plantedclean.sub.deeper import y\n",
            "plantedclean/sub/deeper/y.py": "from plantedclean.core import errors\n",
            "plantedclean/core/errors.py": "",
        },
    )
    edges = edges_of(build_graph("plantedclean"))
    assert ("plantedclean.sub.x", "plantedclean.sub.deeper.y") in edges  # the graph saw the imports
    assert cycles(folder_edges(edges)) == []
    assert core_offences(edges, "plantedclean", "plantedclean.core") == []
