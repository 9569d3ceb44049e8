"""Test modules have unique file names: pytest imports them by basename (no packages under tests/), so
two `test_rules.py` in different folders stop the whole collection with an import-file mismatch. Tests
mirror the source: every namespace package has a test module under its mirrored folder."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from api.infra.discovery.namespaces import CONTEXTS

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_module_name_is_unique():
    places: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if "node_modules" not in path.parts:
            places[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in places.items() if len(paths) > 1}
    assert clashes == {}, f"rename one of each: {clashes}"


REPO = TESTS.parent


def namespaces_without_tests(repo: Path) -> list[str]:
    """The namespace packages `api/<context>/<namespace>/` with no test module in a mirrored folder,
    `tests/unit/api/<context>/<namespace>/` or `tests/integration/api/<context>/<namespace>/`."""
    missing = []
    for context in CONTEXTS:
        for package in sorted((repo / "api" / context).iterdir()):
            if not (package / "__init__.py").is_file():
                continue
            relative = package.relative_to(repo / "api")
            mirrored = [repo / "tests" / kind / "api" / relative for kind in ("unit", "integration")]
            if not any(any(folder.rglob("test_*.py")) for folder in mirrored if folder.is_dir()):
                missing.append(relative.as_posix())
    return missing


def test_every_namespace_has_a_mirrored_test_folder():
    assert namespaces_without_tests(REPO) == [], (
        "add tests/unit/api/<context>/<ns>/ or tests/integration/api/<context>/<ns>/"
    )


def test_a_namespace_without_tests_is_reported(tmp_path):
    for package in ("api/money/tested", "api/money/untested", "api/denials/unit_only"):
        (tmp_path / package).mkdir(parents=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "api/money/not_a_package").mkdir()
    for test in ("tests/integration/api/money/tested/test_t.py", "tests/unit/api/denials/unit_only/test_u.py"):
        (tmp_path / test).parent.mkdir(parents=True)
        (tmp_path / test).write_text("")
    (tmp_path / "tests/unit/api/money/untested").mkdir(parents=True)  # a folder without a test is not enough
    for context in ("platform", "evidence", "intelligence", "automation", "integrations"):
        (tmp_path / "api" / context).mkdir(parents=True)
    assert namespaces_without_tests(tmp_path) == ["money/untested"]
