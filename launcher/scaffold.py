"""`new-namespace <context> <name>`: the skeleton of a namespace package as docs/architecture.md's
"Adding a namespace" lays it out, with one example list and get procedure built on the kit (the router,
`where_given`, `get_by_id`, `paginate`) and its mirrored unit and integration tests.

The files come from `launcher/templates/namespace/`; `@@...@@` marks what is filled in. Nothing existing
is overwritten: an unknown context, a name that is not snake_case, or a namespace already present (in
any context: procedure names are global) is refused before anything is written.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from api.infra.discovery.namespaces import CONTEXTS
from api.rpc.procedure import namespace_of

TEMPLATES = Path(__file__).parent / "templates" / "namespace"
_NAME = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


class ScaffoldError(ValueError):
    """The namespace cannot be generated; the message says why."""


def _files(context: str, name: str) -> dict[str, str]:
    """Target path (relative to the repository root) -> template name."""
    package = f"api/{context}/{name}"
    return {
        f"{package}/__init__.py": "__init__.py.tmpl",
        f"{package}/models.py": "models.py.tmpl",
        f"{package}/schemas.py": "schemas.py.tmpl",
        f"{package}/service.py": "service.py.tmpl",
        f"{package}/procedures.py": "procedures.py.tmpl",
        f"tests/unit/api/{context}/{name}/test_{name}_service.py": "test_unit.py.tmpl",
        f"tests/integration/api/{context}/{name}/test_{name}_rpc.py": "test_integration.py.tmpl",
    }


def check(root: Path, context: str, name: str) -> None:
    """Raise ScaffoldError unless `name` can become a new namespace of `context` under `root`."""
    if context not in CONTEXTS:
        raise ScaffoldError(f"unknown context {context!r}: one of {', '.join(CONTEXTS)}")
    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise ScaffoldError(f"bad name {name!r}: snake_case, a letter first (e.g. payer_letters)")
    for other in CONTEXTS:
        if (root / "api" / other / name).exists():
            raise ScaffoldError(f"namespace {name!r} exists already (api/{other}/{name})")
    taken = [path for path in _files(context, name) if (root / path).exists()]
    if taken:
        raise ScaffoldError(f"would overwrite {', '.join(taken)}")


def render(template: str, context: str, name: str) -> str:
    pascal = "".join(part.capitalize() for part in name.split("_"))
    values = {
        "@@context@@": context,
        "@@name@@": name,
        "@@NS@@": namespace_of(name),
        "@@Pascal@@": pascal,
        "@@Title@@": name.replace("_", " "),
    }
    text = (TEMPLATES / template).read_text(encoding="utf-8")
    for token, value in values.items():
        text = text.replace(token, value)
    return text


def new_namespace(root: Path, context: str, name: str) -> list[Path]:
    """Write the skeleton of namespace `name` in `context` under the repository `root`; the paths written."""
    check(root, context, name)
    written = []
    for relative, template in _files(context, name).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(template, context, name), encoding="utf-8")
        written.append(path)
    return written
