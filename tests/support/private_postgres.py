"""A PostgreSQL cluster of one test's own (initdb, pg_ctl) that the test may stop and restart at will,
without touching the shared server the rest of the suite uses. PostgreSQL refuses to run as root, so as
root the cluster belongs to the `postgres` account (which Debian's package creates)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.conftest import free_port


def _bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        pytest.fail("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    return Path(initdb).parent


@dataclass(frozen=True)
class Cluster:
    root: Path
    port: int
    bindir: Path
    owner: str | None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def ctl(self, *args: str) -> None:
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.root / "data"),
            "-l",
            str(self.root / "server.log"),
            "-o",
            f"-p {self.port} -k {self.root / 'socket'} -c listen_addresses=127.0.0.1",
            "-w",
            "-t",
            "60",
            *args,
        )

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self.owner, "--"] if self.owner else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = (
                (self.root / "server.log").read_text(errors="replace")[-2000:]
                if (self.root / "server.log").exists()
                else ""
            )
            pytest.fail(f"{Path(command[0]).name} {' '.join(command[1:3])} failed: {done.stderr[-2000:]}\n{log}")


@contextmanager
def private_cluster() -> Iterator[Cluster]:
    """A fresh cluster (trust authentication on 127.0.0.1, a free port), started; stopped and removed at
    the end. It lives in its own folder under the system's temporary directory: pytest's are 0700 to
    root, which the `postgres` account cannot enter."""
    owner = "postgres" if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="private-pg-"))
    (root / "socket").mkdir(parents=True)
    if owner:
        account = pwd.getpwnam(owner)
        for path in (root, root / "socket"):
            os.chown(path, account.pw_uid, account.pw_gid)
    cluster = Cluster(root, free_port(), _bindir(), owner)
    cluster._run(
        str(cluster.bindir / "initdb"), "-D", str(root / "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8"
    )
    cluster.ctl("start")
    try:
        yield cluster
    finally:
        subprocess.run(
            [
                *(["runuser", "-u", owner, "--"] if owner else []),
                str(cluster.bindir / "pg_ctl"),
                "-D",
                str(root / "data"),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)
