"""The dbt project and its manifest.

The manifest is built by ``dbt parse`` (``ensure_manifest``), which re-parses only
when a project file is newer than the manifest. The dbt assets call it the first
time they are asked for (``pipelines.defs.dbt.assets``); the runner calls it too.

dbt is always the one installed in this project's own environment
(``dbt_executable``), never whatever ``dbt`` happens to be on ``PATH``: the code
server ``dagster dev`` starts inherits the caller's ``PATH``, which need not
hold the virtualenv's ``bin`` (``make up`` runs ``.venv/bin/python`` without
activating the venv).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from dagster_dbt import DbtProject

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
_WATCHED = ("models", "macros", "seeds", "tests", "dbt_project.yml", "profiles.yml")


def _environment_script_dirs() -> list[Path]:
    """Where this interpreter's environment installs console scripts, most specific first.

    ``sysconfig``'s scripts path and ``sys.prefix/bin`` both name the virtualenv
    whatever path the interpreter was started by (``dagster dev`` starts its
    code server with its own ``sys.executable``); the interpreter's own folder
    comes last because a venv's ``python`` may be a symlink into a base install.
    """
    candidates = [
        Path(sysconfig.get_path("scripts")),
        Path(sys.prefix) / ("Scripts" if os.name == "nt" else "bin"),
        Path(sys.executable).parent,
    ]
    unique: list[Path] = []
    for folder in candidates:
        if folder not in unique:
            unique.append(folder)
    return unique


def dbt_executable() -> str:
    """The absolute path of the ``dbt`` installed with this project (its environment's scripts).

    Falls back to ``dbt`` on ``PATH`` only when the environment has none (dbt
    installed system-wide); ``"dbt"`` when there is no dbt at all, so the
    caller's error names the missing command.
    """
    for folder in _environment_script_dirs():
        for name in ("dbt", "dbt.exe"):
            candidate = folder / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("dbt") or "dbt"


# `prepare_if_dev()` is deliberately never called (see pipelines.defs.dbt.assets): its default preparer
# would run `dbt` from PATH. The manifest comes from `ensure_manifest`, with this environment's dbt.
dbt_project = DbtProject(project_dir=DBT_PROJECT_DIR, profiles_dir=DBT_PROJECT_DIR)


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
        completed = subprocess.run(command, check=False, env=env, cwd=DBT_PROJECT_DIR, capture_output=True, text=True)
        if completed.returncode != 0:
            raise RuntimeError(f"dbt parse failed:\n{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}")
        manifest.touch()
    return manifest
