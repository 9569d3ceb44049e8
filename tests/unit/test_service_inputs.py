"""A namespace's service takes plain values (ids, strings, dates, Decimals, small frozen dataclasses declared
in the service or a pure module), never the wire's pydantic inputs: the procedure maps its input to the
service call (docs/architecture.md, "The packages"). So no `api/<context>/<namespace>/service.py` imports a
`schemas` module, its own or another namespace's, at module level, inside a function or under
TYPE_CHECKING; this scan of the sources fails on one that does.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import REPO


def _is_schemas(module: str) -> bool:
    return module.rsplit(".", maxsplit=1)[-1] == "schemas"


def schemas_imports(source: str) -> list[str]:
    """The `schemas` modules a module's source imports, wherever the import statement stands."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_schemas(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            if node.module is not None and _is_schemas(node.module):
                found.append(base)
            # `from api.denials.outcomes import schemas`, `from . import schemas`
            found += [f"{base}.{alias.name}".lstrip(".") for alias in node.names if alias.name == "schemas"]
    return found


def services(root: Path) -> list[Path]:
    """Every namespace's service module under `root` (api/<context>/<namespace>/service.py)."""
    return sorted(root.glob("api/*/*/service.py"))


def offences(root: Path) -> dict[str, list[str]]:
    """service.py (relative to `root`) -> the schemas modules it imports, for each that imports one."""
    return {str(p.relative_to(root)): found for p in services(root) if (found := schemas_imports(p.read_text()))}


def test_there_are_services_to_scan():
    assert len(services(REPO)) > 40  # the glob sees the namespace packages (48 services today)


def test_no_service_imports_a_schemas_module():
    assert offences(REPO) == {}, "a service takes plain values; map the wire input in the procedure"


@pytest.mark.parametrize(
    "snippet",
    [
        "from api.denials.outcomes.schemas import RecordOutcomeIn\n",
        "from api.denials.outcomes import schemas\n",
        "import api.denials.claims.schemas as wire\n",
        "from .schemas import CreateIn\n",
        "from . import schemas\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from api.money.ar_operations.schemas import FollowUpItem\n",
        "def record(db, data):\n    from api.denials.outcomes.schemas import RecordOutcomeIn\n    return RecordOutcomeIn(**data)\n",
    ],
)
def test_a_planted_schemas_import_is_found(snippet: str):
    assert schemas_imports(snippet) != []


def test_other_imports_pass():
    clean = (
        "from api.rpc.schema import Page\n"  # the RPC layer's paging helpers are not a namespace's wire
        "from api.denials.outcomes import rules, service as outcomes\n"
        "from api.denials.drafts.content import MAX_CONTENT\n"
        "import api.infra.db.lookup\n"
    )
    assert schemas_imports(clean) == []


def test_a_planted_service_file_fails_the_scan(tmp_path: Path):
    # The same scan over a planted tree: one offending service, one clean.
    bad = tmp_path / "api" / "denials" / "planted" / "service.py"
    good = tmp_path / "api" / "denials" / "clean" / "service.py"
    for path, text in ((bad, "from api.denials.planted.schemas import PlantedIn\n"), (good, "import dataclasses\n")):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    assert offences(tmp_path) == {"api/denials/planted/service.py": ["api.denials.planted.schemas"]}
