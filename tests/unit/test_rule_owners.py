"""One owner per rule: a case's moves and history belong to api/denials/cases, a claim's rows to
api/denials/claims, a case's deadlines to api/denials/deadlines (docs/architecture.md, "Where each
rule lives"). Every other module asks the owner's service; this scan of the api/ sources fails when one
builds or changes those rows itself.

The scan reads the syntax, not the types: a name counts as a row of a model when a function's
parameter is annotated with the model, or the name is bound (assigned, or a loop's variable) from an
expression naming the model (``db.scalar(select(Claim)...)``) or calling the owner's reader
(``get_case``). That is how the code base reads rows; a row reached some other way escapes the scan.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.paths import REPO


@dataclass(frozen=True)
class Owned:
    """Rows of `model` are built, and `fields` of them set (None: any field), only under `owner`."""

    model: str
    owner: str
    fields: frozenset[str] | None = None
    readers: frozenset[str] = frozenset()


CLAIM_MODELS = (
    "Claim",
    "ClaimLine",
    "ClaimTransition",
    "ClaimAmount",
    "ClaimAttachment",
    "ClaimLink",
    "ClaimExternalAction",
    "PartnerProfile",
)

OWNED = (
    # the history of a case: cases.service.add_event (and apply_move / apply_decision for a move)
    Owned("CaseEvent", "api/denials/cases/"),
    # where a case is in its lifecycle: cases.service.transition / apply_move / apply_decision; the other
    # columns of a case have their own owners (deadlines: appeal_due_on; humanAttention: the scores)
    Owned(
        "DenialCase",
        "api/denials/cases/",
        fields=frozenset({"state", "state_changed_at"}),
        readers=frozenset({"get_case"}),
    ),
    Owned("Claim", "api/denials/claims/", readers=frozenset({"get_claim"})),
    *(Owned(model, "api/denials/claims/") for model in CLAIM_MODELS if model != "Claim"),
    Owned("CaseDeadline", "api/denials/deadlines/"),
)

#: Known writers outside the owner, each with why it is left (a fix removes its line: the test also
#: fails when an entry no longer matches anything, so the list cannot go stale).
KNOWN: dict[str, str] = {}


def _model_named(node: ast.expr | None) -> str | None:
    """`Claim` or `models.Claim` as a name (a call's function: `get_case`, `cases.get_case`)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _called(node: ast.Call) -> str | None:
    return _model_named(node.func)


def _models_in(expr: ast.AST) -> set[str]:
    """The owned models an expression names, directly or through the owner's reader."""
    found: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name | ast.Attribute):
            name = _model_named(node)
            found.update(o.model for o in OWNED if o.model == name)
        if isinstance(node, ast.Call):
            name = _called(node)
            found.update(o.model for o in OWNED if name in o.readers)
    return found


def _annotation(node: ast.expr) -> ast.AST:
    """An annotation as syntax (a quoted one parsed)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.parse(node.value, mode="eval")
    return node


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _names(element)]
    return []


def _bound(scope: ast.AST) -> dict[str, set[str]]:
    """Name -> the owned models it may hold, in one function (or the module's top level)."""
    bound: dict[str, set[str]] = {}
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        arguments = scope.args
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if arg.annotation is not None:
                models = _models_in(_annotation(arg.annotation))
                if models:
                    bound.setdefault(arg.arg, set()).update(models)
    for node in _own_nodes(scope):
        pairs: list[tuple[ast.expr, ast.AST]] = []
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value), (node.target, _annotation(node.annotation))]
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            pairs = [(node.target, node.iter)]
        elif isinstance(node, ast.NamedExpr):
            pairs = [(node.target, node.value)]
        for target, value in pairs:
            models = _models_in(value)
            for name in _names(target):
                if models:
                    bound.setdefault(name, set()).update(models)
    return bound


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a scope without those of the functions defined inside it (scanned on their own)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _forbidden(model: str, path: str) -> Owned | None:
    for owned in OWNED:
        if owned.model == model and not path.startswith(owned.owner):
            return owned
    return None


def _set_fields(node: ast.Call) -> list[str | None]:
    """The fields a `.values(...)` call sets (None: one whose name the syntax does not give)."""
    fields: list[str | None] = [k.arg for k in node.keywords]
    for arg in node.args:
        if isinstance(arg, ast.Dict):
            fields += [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in arg.keys]
        else:
            fields.append(None)
    return fields


def _statement_models(node: ast.expr, bound: dict[str, set[str]]) -> set[str]:
    """The models an `update(...)` chain ending at `node` writes (`update(X).where(...)`)."""
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Call) and _called(node) == "update" and node.args:
            return _models_of(node.args[0], bound)
        node = node.func if isinstance(node, ast.Call) else node.value
    return set()


def _models_of(arg: ast.expr, bound: dict[str, set[str]]) -> set[str]:
    """The models an argument names: `Claim`, `Claim.__table__`, or a name bound to one (a table)."""
    name = _root_name(arg)
    return _models_in(arg) - _reader_models(arg) | (bound.get(name, set()) if name else set())


def _reader_models(expr: ast.AST) -> set[str]:
    return {o.model for n in ast.walk(expr) if isinstance(n, ast.Call) for o in OWNED if _called(n) in o.readers}


def violations(path: str, source: str) -> list[str]:
    """What `source` (the module at `path`, relative to the repository) does to rows it does not own."""
    tree = ast.parse(source, filename=path)
    found: set[str] = set()

    def flag(model: str, how: str, fields: list[str | None] | None = None) -> None:
        """`fields` None: building or removing rows, never allowed outside the owner."""
        owned = _forbidden(model, path)
        if owned is None:
            return
        if fields is not None and owned.fields is not None and not any(f in owned.fields for f in fields):
            return  # a column another namespace owns (or one whose name the syntax does not give)
        found.add(f"{path}: {how}")

    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope in [tree, *functions]:
        bound = _bound(scope)
        for node in _own_nodes(scope):
            if isinstance(node, ast.Call):
                _check_call(node, bound, flag)
            for target in _assigned(node):
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    for model in bound.get(target.value.id, set()):
                        flag(model, f"sets {model}.{target.attr}", [target.attr])
    return sorted(found)


def _check_call(node: ast.Call, bound: dict[str, set[str]], flag: Any) -> None:
    name = _called(node)
    if any(o.model == name for o in OWNED) and name is not None:
        flag(name, f"builds a {name} row")
    elif name in ("insert", "delete") and node.args:
        for model in _models_of(node.args[0], bound):
            flag(model, f"{name}s {model} rows")
    elif name == "update" and node.args:
        for model in _models_of(node.args[0], bound):
            flag(model, f"updates {model} rows", [None])  # the fields: in the .values() below
    elif name == "setattr" and len(node.args) >= 2:
        target, attr = _root_name(node.args[0]), node.args[1]
        field = attr.value if isinstance(attr, ast.Constant) and isinstance(attr.value, str) else None
        for model in bound.get(target, set()) if target else set():
            flag(model, f"changes a {model} row (setattr)", [field])
    elif isinstance(node.func, ast.Attribute) and node.func.attr == "values":
        for model in _statement_models(node.func.value, bound):
            flag(model, f"updates {model} rows", _set_fields(node))


def _assigned(node: ast.AST) -> list[ast.expr]:
    """The single targets an assignment writes (a tuple target's elements one by one)."""
    if isinstance(node, ast.Assign):
        todo = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        todo = [node.target]
    else:
        return []
    out: list[ast.expr] = []
    while todo:
        target = todo.pop()
        if isinstance(target, ast.Tuple | ast.List):
            todo.extend(target.elts)
        else:
            out.append(target)
    return out


def _sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(REPO)), path.read_text(encoding="utf-8"))
        for path in sorted((REPO / "api").rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_only_the_owners_build_or_move_their_rows():
    found = {v for path, source in _sources() for v in violations(path, source)}
    assert sorted(found - set(KNOWN)) == [], "ask the owner's service (docs/architecture.md, Where each rule lives)"
    assert sorted(set(KNOWN) - found) == [], "fixed: remove the entry from KNOWN"


# Planted snippets: each does one forbidden thing; outside the owner it is found, inside it is not.
PLANTED = {
    "an event built by hand": (
        "from api.denials.cases.models import CaseEvent\n"
        "def note(db, case):\n"
        "    db.add(CaseEvent(case_id=case.id, kind='x'))\n",
        "builds a CaseEvent row",
    ),
    "an event built through its module": (
        "from api.denials.cases import models\ndef note(db, case):\n    db.add(models.CaseEvent(case_id=case.id))\n",
        "builds a CaseEvent row",
    ),
    "a state set on the case the owner answered": (
        "def decide(db, case_id):\n    case = cases.get_case(db, case_id)\n    case.state = 'won'\n",
        "sets DenialCase.state",
    ),
    "a state set in a tuple": (
        "def decide(db, case_id, now):\n"
        "    case = db.scalar(select(DenialCase).where(DenialCase.id == case_id))\n"
        "    case.recovered_amount, (case.state, case.state_changed_at) = 0, ('lost', now)\n",
        "sets DenialCase.state_changed_at",
    ),
    "a state set on an annotated parameter": (
        "def decide(case: DenialCase) -> None:\n    case.state = 'lost'\n",
        "sets DenialCase.state",
    ),
    "a state set by setattr": (
        "def decide(case: 'DenialCase') -> None:\n    setattr(case, 'state', 'lost')\n",
        "changes a DenialCase row (setattr)",
    ),
    "a state set by an UPDATE": (
        "def close_all(db):\n    db.execute(update(DenialCase).where(DenialCase.id > 0).values(state='closed'))\n",
        "updates DenialCase rows",
    ),
    "a claim built": (
        "def create(db):\n    db.add(Claim(claim_key='k'))\n",
        "builds a Claim row",
    ),
    "a claim's transition recorded by hand": (
        "def move(db, claim):\n    db.add(ClaimTransition(claim_id=claim.id))\n",
        "builds a ClaimTransition row",
    ),
    "a claim's field changed": (
        "def fix(db, key):\n    claim = db.scalar(select(Claim).where(Claim.claim_key == key))\n    claim.payer = 'X'\n",
        "sets Claim.payer",
    ),
    "a claim's amount grown": (
        "def grow(db, claim_id):\n    claim = claims.get_claim(db, claim_id)\n    claim.total_charge += 1\n",
        "sets Claim.total_charge",
    ),
    "claim lines removed": (
        "def drop(db, claim_id):\n    db.execute(delete(ClaimLine).where(ClaimLine.claim_id == claim_id))\n",
        "deletes ClaimLine rows",
    ),
    "a deadline built": (
        "def schedule(db, case):\n    db.add(CaseDeadline(case_id=case.id, level='first'))\n",
        "builds a CaseDeadline row",
    ),
    "a deadline met in a loop": (
        "def meet(db):\n    for row in db.scalars(select(CaseDeadline)):\n        row.status = 'met'\n",
        "sets CaseDeadline.status",
    ),
    "deadlines moved by an UPDATE of the table": (
        "def move(db):\n"
        "    table = CaseDeadline.__table__\n"
        "    db.execute(update(table).where(table.c.id == 1), [{'due_on': None}])\n",
        "updates CaseDeadline rows",
    ),
}


@pytest.mark.parametrize("snippet, expected", PLANTED.values(), ids=PLANTED.keys())
def test_a_planted_write_is_found_outside_its_owner(snippet: str, expected: str):
    assert f"api/denials/outside/service.py: {expected}" in violations("api/denials/outside/service.py", snippet)


@pytest.mark.parametrize("snippet, expected", PLANTED.values(), ids=PLANTED.keys())
def test_the_owner_may_do_what_it_owns(snippet: str, expected: str):
    model = next(word for word in re.split(r"\W+", expected) if any(o.model == word for o in OWNED))
    owner = next(o.owner for o in OWNED if o.model == model)
    assert violations(f"{owner}service.py", snippet) == []


def test_reads_and_other_owners_columns_are_not_writes():
    snippet = (
        "def work(db, case_id: int, claim_id: int):\n"
        "    case = cases.get_case(db, case_id)\n"
        "    case.snoozed_until = None  # humanAttention's column\n"
        "    case.appeal_due_on = None  # the deadlines'\n"
        "    claim = claims.get_claim(db, claim_id)\n"
        "    state = claim.state\n"
        "    table = DenialCase.__table__\n"
        "    db.execute(update(table).values({'priority_score': 1.0}))\n"
        "    for event in db.scalars(select(CaseEvent).where(CaseEvent.case_id == case.id)):\n"
        "        print(event.kind, state)\n"
    )
    assert violations("api/denials/outside/service.py", snippet) == []
