"""The seven bounded contexts are real boundaries (docs/architecture.md, "Boundaries between contexts").

What one context needs from another goes through that context's published modules only: its
namespaces' `service` modules and the few published pure-rule modules listed in `PUBLISHED`. And a
context uses only the contexts below it in `ALLOWED`, a table with no cycle, so no two contexts
import each other. The graph is built from the source WITH imports under `if TYPE_CHECKING:`: a
type-only import of another context's table still couples the two.

Each check is a function of an import graph, proved on planted packages written into `tmp_path`
(so a check that could never fail is caught), then run on `api`.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import grimp
import pytest

from api.infra.discovery.namespaces import CONTEXTS

# Which context may use which, and why: a context only uses contexts lower in the stack
# automation / intelligence -> integrations -> denials -> evidence -> money -> platform.
ALLOWED: dict[tuple[str, str], str] = {
    ("automation", "denials"): "the AI and voice agents act on cases, drafts, appeal letters and payer interactions",
    ("automation", "evidence"): "AI tasks read a case's documents; transcripts use the evidence redaction rule",
    ("automation", "integrations"): "every automated path asks the operational pause first",
    ("automation", "platform"): "two-person rules ask whether the decider is independent of the author",
    ("intelligence", "denials"): "payer rules explain and reschedule the deadlines they change",
    ("intelligence", "evidence"): "an intervention's status shows the latest evidence of its effect",
    ("intelligence", "money"): "payer aliases are reconciliation's; rules are keyed by them",
    ("intelligence", "platform"): "the portfolio names the organization's clients",
    ("integrations", "denials"): "FHIR resources are built from claims; readiness counts working cases",
    ("integrations", "money"): "readiness counts imports, matches and contract terms",
    ("integrations", "platform"): "SMART tokens are auth's; readiness reads clients and go-live gates",
    ("denials", "evidence"): "appeal packets and deadline risk use a case's documents",
    ("denials", "money"): "claims and cases are built from posted import rows and reconciliation",
    ("denials", "platform"): "a client's time zone and members; two-person rules",
    ("evidence", "money"): "documents are stored like uploads, in a content-addressed landing zone",
    ("money", "platform"): "clients and members of the organization",
}

# Published pure-rule modules: besides each namespace's `service`, the only modules another
# context may import. Pure (no session, no writes; at most reference data read once), and shared
# because two contexts must apply the very same rule. Keep the list short.
PUBLISHED: dict[str, str] = {
    "api.integrations.operational_control.scopes": "the names of the automated paths, named on the wire by "
    "aiGovernance, aiPlatform and agentWorkbench",
    "api.evidence.evidence_control.redaction": "the one PHI redaction rule: a call transcript hides what a document hides",
    "api.evidence.evidence_control.detection": "bounded reading of an untrusted PDF's page tree, also for rendering "
    "a packet from its documents",
    "api.denials.deadlines.rules": "the appeal and timely-filing rule engine over the payer_appeal_limits seed: "
    "payerRules shows and evaluates exactly the rules the deadlines apply",
    "api.denials.payer_interactions.vocabulary": "the outcomes of a payer interaction: a voice call's status is "
    "answered in them on the wire and logged as an interaction",
    "api.denials.appeal_assembly.letter": "the appeal letter's fields and template: AI drafts and knowledge rules "
    "fill the letter the packet renders",
    "api.denials.human_attention.history_prior": "the worklist's Beta-binomial posterior of P(overturn): the "
    "outcome model (outcomeLearning) is held to the same prior it may replace",
}

# Why each waived import is still there (issue 25 left them; each names the way out).
EVIDENCE_TARGETS = (
    "attaching checks the case or claim exists and reads its identifiers for redaction, and a link checks "
    "its target (evidence -> denials, through cases/claims.service); the target's facts must be handed in "
    "through the composition root (like evidenceQuality's case_category_of), threaded through link_document, "
    "which appeal assembly and the tests call with a session only"
)
REBILLING = (
    "rebilling (catalogued under money) checks timely filing with the deadlines' rules and facts and marks the "
    "case's filing deadline met (money -> denials); needs the rules published lower and a rebill-submitted hook"
)
CONNECTOR_PROFILES = (
    "an upload's columns are mapped by the client's connector profile (money -> integrations); the lookup "
    "also runs in the parse job (ingestion/job_handlers.py), which has settings but no services, so a port "
    "must first reach the job context (or connectorProfiles is catalogued under money)"
)
MIGRATION = (
    "committing a migration creates claims and cases (platform -> denials, through cases/claims.service); needs "
    "the creation behind a hook in the composition root"
)

# Imports still crossing a boundary they should not, each with why it is still there. The list can
# only shrink: an entry that no longer exists fails `test_the_allowlist_only_names_imports_that_exist`.
ALLOWLIST: dict[tuple[str, str], str] = {
    ("api.evidence.evidence_control.service", "api.denials.cases.service"): EVIDENCE_TARGETS,
    ("api.evidence.evidence_control.service", "api.denials.claims.service"): EVIDENCE_TARGETS,
    ("api.money.ingestion.parse", "api.integrations.connector_profiles.service"): CONNECTOR_PROFILES,
    ("api.money.ingestion.upload", "api.integrations.connector_profiles.service"): CONNECTOR_PROFILES,
    ("api.money.rebilling.procedures", "api.denials.deadlines.service"): REBILLING,
    ("api.money.rebilling.service", "api.denials.cases.payer_classes"): REBILLING,
    ("api.money.rebilling.service", "api.denials.deadlines.rules"): REBILLING,
    ("api.money.rebilling.service", "api.denials.deadlines.service"): REBILLING,
    ("api.money.rebilling.timely_filing", "api.denials.deadlines.rules"): REBILLING,
    ("api.platform.migration_factory.service", "api.denials.cases.service"): MIGRATION,
    ("api.platform.migration_factory.service", "api.denials.claims.service"): MIGRATION,
}


def context_of(module: str, root: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[0] == root and parts[1] in CONTEXTS:
        return parts[1]
    return None


def is_published(module: str, published: Iterable[str]) -> bool:
    """A namespace's `service` module (or a module of a `service` package), or one listed as published."""
    parts = module.split(".")
    return (len(parts) >= 4 and parts[3] == "service") or module in set(published)


def cross_context_imports(graph: grimp.ImportGraph, root: str) -> list[tuple[str, str]]:
    """Every direct import from a module of one context to a module of another."""
    edges = []
    for importer in sorted(graph.modules):
        source = context_of(importer, root)
        if source is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            target = context_of(imported, root)
            if target is not None and target != source:
                edges.append((importer, imported))
    return edges


def unpublished(edges: Iterable[tuple[str, str]], published: Iterable[str]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in edges if not is_published(b, published)]


def against_direction(
    edges: Iterable[tuple[str, str]], allowed: Iterable[tuple[str, str]], root: str
) -> list[tuple[str, str]]:
    permitted = set(allowed)
    return [(a, b) for a, b in edges if (context_of(a, root), context_of(b, root)) not in permitted]


def context_cycles(pairs: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Groups of contexts that reach each other (strongly connected, more than one), sorted."""
    edges: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        edges[a].add(b)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    nodes = sorted({n for pair in edges.items() for n in (pair[0], *pair[1])})
    reached = {n: reach(n) for n in nodes}
    groups = {tuple(sorted(m for m in nodes if m == n or (m in reached[n] and n in reached[m]))) for n in nodes}
    return sorted(list(g) for g in groups if len(g) > 1)


def context_pairs(edges: Iterable[tuple[str, str]], root: str) -> set[tuple[str, str]]:
    return {(str(context_of(a, root)), str(context_of(b, root))) for a, b in edges}


def violations(
    graph: grimp.ImportGraph,
    root: str,
    allowed: Iterable[tuple[str, str]],
    published: Iterable[str],
    allowlist: Iterable[tuple[str, str]] = (),
) -> dict[str, list]:
    """The three checks on one graph; the allowlisted imports are left out of all three."""
    waived = set(allowlist)
    edges = [e for e in cross_context_imports(graph, root) if e not in waived]
    return {
        "unpublished": unpublished(edges, published),
        "against_direction": against_direction(edges, allowed, root),
        "cycles": context_cycles(context_pairs(edges, root)),
    }


# --- the checks proved on planted packages ----------------------------------------------------------------------


def plant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root: str, files: dict[str, str]) -> grimp.ImportGraph:
    """Write a package `root` with the given modules (dotted name below root -> source), graph it."""
    for dotted, source in files.items():
        path = tmp_path.joinpath(root, *dotted.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    for directory in [tmp_path / root, *(tmp_path / root).rglob("*")]:
        if directory.is_dir() and not (directory / "__init__.py").exists():
            (directory / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    return grimp.build_graph(root, exclude_type_checking_imports=False, cache_dir=None)


PLANTED_ALLOWED = [("denials", "money")]


def test_a_context_importing_another_contexts_models_fails(tmp_path, monkeypatch):
    graph = plant(
        tmp_path,
        monkeypatch,
        "plant_models",
        {
            "money.ingestion.models": "class ImportRow: ...\n",
            "money.ingestion.service": "from plant_models.money.ingestion.models import ImportRow\n",
            "denials.cases.service": "from plant_models.money.ingestion.models import ImportRow\n",
        },
    )
    found = violations(graph, "plant_models", PLANTED_ALLOWED, ())
    assert found["unpublished"] == [("plant_models.denials.cases.service", "plant_models.money.ingestion.models")]
    assert found["against_direction"] == [] and found["cycles"] == []


def test_a_type_only_import_of_another_contexts_schemas_fails(tmp_path, monkeypatch):
    # Type-only imports count: they still tie one context to the other's internals.
    graph = plant(
        tmp_path,
        monkeypatch,
        "plant_typing",
        {
            "money.ingestion.schemas": "class BatchOut: ...\n",
            "denials.claims.procedures": """
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from plant_typing.money.ingestion.schemas import BatchOut
            """,
        },
    )
    assert violations(graph, "plant_typing", PLANTED_ALLOWED, ())["unpublished"] == [
        ("plant_typing.denials.claims.procedures", "plant_typing.money.ingestion.schemas")
    ]


def test_the_service_and_the_listed_pure_rules_are_published(tmp_path, monkeypatch):
    graph = plant(
        tmp_path,
        monkeypatch,
        "plant_published",
        {
            "money.ingestion.service": "def batches(db): ...\n",
            "money.ingestion.calendar": "def next_day(d): ...\n",
            "denials.cases.service": """
                from plant_published.money.ingestion import service
                from plant_published.money.ingestion.calendar import next_day
            """,
        },
    )
    edges = cross_context_imports(graph, "plant_published")
    assert len(edges) == 2
    assert violations(graph, "plant_published", PLANTED_ALLOWED, ["plant_published.money.ingestion.calendar"]) == {
        "unpublished": [],
        "against_direction": [],
        "cycles": [],
    }
    # Without the listing the pure module is private to its context.
    assert violations(graph, "plant_published", PLANTED_ALLOWED, ())["unpublished"] == [
        ("plant_published.denials.cases.service", "plant_published.money.ingestion.calendar")
    ]


def test_an_import_against_the_allowed_directions_and_a_two_way_pair_fail(tmp_path, monkeypatch):
    # Both imports are of published services; money -> denials is not an allowed direction, and the
    # two together are a cycle between the contexts.
    graph = plant(
        tmp_path,
        monkeypatch,
        "plant_cycle",
        {
            "money.ingestion.service": "from plant_cycle.denials.cases import service\n",
            "denials.cases.service": "from plant_cycle.money.ingestion import service\n",
        },
    )
    found = violations(graph, "plant_cycle", PLANTED_ALLOWED, ())
    assert found["unpublished"] == []
    assert found["against_direction"] == [("plant_cycle.money.ingestion.service", "plant_cycle.denials.cases.service")]
    assert found["cycles"] == [["denials", "money"]]
    # An allowlisted import is waived by all three checks, and only that one.
    waived = violations(graph, "plant_cycle", PLANTED_ALLOWED, (), [found["against_direction"][0]])
    assert waived == {"unpublished": [], "against_direction": [], "cycles": []}


def test_imports_inside_one_context_are_free(tmp_path, monkeypatch):
    graph = plant(
        tmp_path,
        monkeypatch,
        "plant_inside",
        {
            "denials.claims.models": "class Claim: ...\n",
            "denials.cases.service": "from plant_inside.denials.claims.models import Claim\n",
        },
    )
    assert cross_context_imports(graph, "plant_inside") == []


def test_the_cycle_finder_sees_a_longer_cycle():
    assert context_cycles([("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]) == [["a", "b", "c"]]
    assert context_cycles([("a", "b"), ("b", "c")]) == []


# --- the checks on the real code ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def api_graph() -> grimp.ImportGraph:
    # No on-disk cache: a cache keyed on file times can serve a module's old imports after a merge or checkout.
    return grimp.build_graph("api", exclude_type_checking_imports=False, cache_dir=None)


def test_the_allowed_directions_have_no_cycle():
    assert context_cycles(ALLOWED) == []
    assert {c for pair in ALLOWED for c in pair} <= set(CONTEXTS)


def test_published_modules_exist_and_are_not_tables_schemas_or_procedures():
    graph = api_graph()
    for module in PUBLISHED:
        assert module in graph.modules, module
        assert module.rsplit(".", 1)[1] not in ("models", "schemas", "procedures", "queries"), module


def test_contexts_import_each_other_only_through_published_modules():
    found = violations(api_graph(), "api", ALLOWED, PUBLISHED, ALLOWLIST)["unpublished"]
    assert found == [], "import the owning namespace's service instead (docs/architecture.md):\n" + "\n".join(
        f"{a} -> {b}" for a, b in found
    )


def test_contexts_import_each_other_only_in_the_allowed_directions():
    found = violations(api_graph(), "api", ALLOWED, PUBLISHED, ALLOWLIST)["against_direction"]
    assert found == [], "tell the higher context through a listener in api/app.py instead:\n" + "\n".join(
        f"{a} -> {b}" for a, b in found
    )


def test_no_cycle_between_contexts():
    assert violations(api_graph(), "api", ALLOWED, PUBLISHED, ALLOWLIST)["cycles"] == []


def test_the_allowlist_only_names_imports_that_exist():
    # An entry fixed in the code leaves the list in the same change, so the list can only shrink.
    present = set(cross_context_imports(api_graph(), "api"))
    assert [entry for entry in ALLOWLIST if entry not in present] == []
    # And each entry is a violation: a published import in an allowed direction needs no waiver.
    found = violations(api_graph(), "api", ALLOWED, PUBLISHED)
    wrong = {*found["unpublished"], *found["against_direction"]}
    assert [entry for entry in ALLOWLIST if entry not in wrong] == []
