"""`new-namespace` writes a namespace whose own tests pass: generated into a temporary copy of the tree
(the repository is never written), given its migration the way the recipe says, and its mirrored unit
and integration tests run there in a fresh interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CONTEXT, NAME = "platform", "sample_letters"


def _tree(root: Path) -> None:
    """What the generated tests need: a real copy of api/ (the generator and the migration write there)
    and of the conftest files on the way to the new test folders; the rest read-only, linked."""
    shutil.copytree(REPO / "api", root / "api", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    for linked in ("pipelines", "launcher", "dbt_project", "tests/support", "tests/integration/api/money"):
        (root / linked).parent.mkdir(parents=True, exist_ok=True)
        (root / linked).symlink_to(REPO / linked, target_is_directory=True)
    for conftest in REPO.joinpath("tests").rglob("conftest.py"):
        relative = conftest.relative_to(REPO)
        if relative.parent in (Path("tests"), Path("tests/integration"), Path("tests/integration/api")):
            shutil.copy(conftest, root / relative)


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root), "DATA_DIR": str(root / "data")}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_a_generated_namespace_passes_its_own_tests(tmp_path):
    root = tmp_path / "tree"
    _tree(root)
    made = _run(root, "-m", "launcher.cli", "new-namespace", CONTEXT, NAME, "--root", str(root))
    assert made.returncode == 0, made.stdout + made.stderr
    assert not (REPO / "api" / CONTEXT / NAME).exists()
    again = _run(root, "-m", "launcher.cli", "new-namespace", CONTEXT, NAME, "--root", str(root))
    assert again.returncode == 2 and "exists already" in again.stdout

    migration = _run(root, "-m", "api.infra.db.new_migration", NAME)
    assert migration.returncode == 0, migration.stdout + migration.stderr
    written = list((root / "api/infra/db/migrations/versions").glob(f"*_{NAME}.py"))
    assert len(written) == 1 and f"{NAME}_items" in written[0].read_text()

    tests = [f"tests/unit/api/{CONTEXT}/{NAME}", f"tests/integration/api/{CONTEXT}/{NAME}"]
    ran = _run(root, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "bt"), *tests)
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    # The integration tests ran (on SQLite at least), not skipped.
    assert f"PASSED tests/integration/api/{CONTEXT}/{NAME}/test_{NAME}_rpc.py::test_get" in ran.stdout, ran.stdout
