"""The dbt project and its manifest.

The manifest is built by ``dbt parse`` (``ensure_manifest``), which re-parses only
when a project file is newer than the manifest. The dbt assets call it the first
time they are asked for (``pipelines.defs.dbt.assets``); the runner calls it too.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from dagster_dbt import DbtProject

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
_WATCHED = ("models", "macros", "seeds", "tests", "dbt_project.yml", "profiles.yml")

dbt_project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)


def dbt_executable() -> str:
    """The ``dbt`` next to the running interpreter (the virtualenv's), else the one on PATH."""
    local = Path(sys.executable).with_name("dbt")
    return str(local) if local.exists() else "dbt"


def _newest_project_file() -> float:
    newest = 0.0
    for name in _WATCHED:
        path = DBT_PROJECT_DIR / name
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
        elif path.is_dir():
            for child in path.rglob("*"):
                if child.is_file():
                    newest = max(newest, child.stat().st_mtime)
    return newest


def manifest_is_current() -> bool:
    manifest = dbt_project.manifest_path
    return manifest.is_file() and manifest.stat().st_mtime >= _newest_project_file()


def ensure_manifest() -> Path:
    """Run ``dbt parse`` if the manifest is missing or older than the project; return its path.

    A file lock serialises concurrent callers (parallel test sessions, the webserver and a run).
    """
    manifest = dbt_project.manifest_path
    if manifest_is_current():
        return manifest
    manifest.parent.mkdir(parents=True, exist_ok=True)
    with open(manifest.parent / ".parse.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if manifest_is_current():
            return manifest
        env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
        command = [
            dbt_executable(),
            "parse",
            "--project-dir",
            str(DBT_PROJECT_DIR),
            "--profiles-dir",
            str(DBT_PROJECT_DIR),
            "--target-path",
            str(manifest.parent),
            "--quiet",
        ]
        completed = subprocess.run(command, env=env, cwd=DBT_PROJECT_DIR, capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError(f"dbt parse failed:\n{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}")
        manifest.touch()
    return manifest
