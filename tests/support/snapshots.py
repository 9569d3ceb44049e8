"""Snapshot files for contracts that must only change deliberately.

A mismatch fails with a diff summary and the command that rewrites the file;
the rewrite is then reviewed like any other change (and listed in the closing
note when it changes the wire).
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

UPDATE_ENV = "UPDATE_SNAPSHOTS"


def render(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def assert_matches_snapshot(value: Any, path: Path, *, test_id: str) -> None:
    text = render(value)
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        raise AssertionError(f"No snapshot at {path}; create it with: {UPDATE_ENV}=1 python -m pytest {test_id}")
    expected = path.read_text()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "snapshot", "now", n=2))
        raise AssertionError(
            f"{path.name} changed. If the change is deliberate, rewrite it with "
            f"`{UPDATE_ENV}=1 python -m pytest {test_id}` and say so in the change.\n{diff[:6000]}"
        )
