"""Files the service keeps (PHI in the landing zone and databases, keys) are readable by its own user only.

``DATA_DIR`` and every directory made under it are 0700, files 0600 (landing
files 0400: they never change). The modes are applied explicitly on creation, so
they hold whatever the process umask is; ``secure_data_dir`` additionally sets
the umask to 077 so that files written by libraries (SQLite's WAL, DuckDB, dbt,
Dagster) are private too. Encryption of the disk, backups and who may log in as
the service user are left to the deployment.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
PRIVATE_UMASK = 0o077


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parents as 0700 (chmod explicitly: mkdir's mode is masked by the umask).
    Directories that already exist keep their mode, except `path` itself when it is ours."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # a concurrent creator: still ours to tighten below
            os.mkdir(directory, PRIVATE_DIR)
        os.chmod(directory, PRIVATE_DIR)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty as 0600 if it is missing, and make an existing one 0600."""
    path = Path(path)
    private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE)
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)
    return path


def secure_data_dir(data_dir: Path) -> Path:
    """DATA_DIR as 0700 (also when it existed with a wider mode) and the process umask 077."""
    os.umask(PRIVATE_UMASK)
    private_dir(data_dir)
    os.chmod(data_dir, PRIVATE_DIR)
    return Path(data_dir)
