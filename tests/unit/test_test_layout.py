"""Test modules have unique file names: pytest imports them by basename (no packages under tests/), so
two `test_rules.py` in different folders stop the whole collection with an import-file mismatch."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_module_name_is_unique():
    places: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if "node_modules" not in path.parts:
            places[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in places.items() if len(paths) > 1}
    assert clashes == {}, f"rename one of each: {clashes}"
