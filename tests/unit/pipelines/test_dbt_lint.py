"""The dbt models pass sqlfluff with the repository's `.sqlfluff` (zero findings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_models_have_no_sqlfluff_findings():
    pytest.importorskip("sqlfluff")
    # A subprocess, from the repository root, exactly as a developer runs it: `.sqlfluff` resolves
    # its macro and library paths from there.
    completed = subprocess.run(
        [sys.executable, "-m", "sqlfluff", "lint", "dbt_project/models", "--format", "json", "--nofail"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    findings = [
        f"{Path(f['filepath']).as_posix()}:{v['start_line_no']} {v['code']} {v['description']}"
        for f in json.loads(completed.stdout)
        for v in f["violations"]
    ]
    assert findings == [], "fix them (`sqlfluff fix dbt_project/models` where safe):\n" + "\n".join(findings)
