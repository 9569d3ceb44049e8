"""The processes `up` runs besides the API, and how all of them stop within a bounded time.

`dagster dev` runs in its own session (process group): a terminal's Ctrl-C
reaches only the launcher, which then stops everything in order, and the whole
Dagster tree (webserver, daemon, code servers and their gRPC children) can be
signalled and, if it lingers, killed as one group. Dagster's own orderly
shutdown takes 10-17 s (measured), longer than a developer waits, so it gets a short grace
period and then SIGKILL; its instance storage is SQLite, which survives that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psutil

REPO_ROOT = Path(__file__).resolve().parents[1]
# Shutdown budget (the launcher promises to be gone within 10 s of SIGINT/SIGTERM).
DAGSTER_GRACE_S = 3.0
KILL_WAIT_S = 2.0


def environment_bin() -> Path:
    """The folder of this environment's console scripts (`.venv/bin`: dagster, dbt)."""
    return Path(sysconfig.get_path("scripts"))


def child_environment(base: Mapping[str, str], **overrides: str) -> dict[str, str]:
    """`base` plus `overrides`, with this environment's scripts first on PATH.

    Belt and braces: the code location resolves dbt from its own environment
    whatever PATH says, but anything else a child runs by name should come from
    the project's environment too, as it would in an activated venv.
    """
    env = {**base, **overrides}
    bin_dir = str(environment_bin())
    rest = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != bin_dir]
    env["PATH"] = os.pathsep.join([bin_dir, *rest])
    return env


@dataclass
class DagsterUi:
    """A running `dagster dev` (leader of its own process group) and where its output goes."""

    process: subprocess.Popen[bytes]
    log_path: Path
    host: str
    port: int
    _interrupted: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def interrupt(self) -> None:
        """Start Dagster's own shutdown: SIGINT to `dagster dev`, which tells its webserver and
        daemon through their shutdown pipes and closes its code servers."""
        # Once only: a second SIGINT would cut `dagster dev`'s own shutdown short and orphan its children.
        with self._lock:
            if self._interrupted or self.process.poll() is not None:
                return
            self._interrupted = True
        _signal_quietly(self.process.pid, signal.SIGINT)

    def stop(self, grace: float = DAGSTER_GRACE_S) -> None:
        """Interrupt, wait up to `grace` seconds, then SIGKILL whatever is left of the group."""
        self.interrupt()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=max(grace, 0.0))
        # The leader may be gone while its webserver or code servers still run: kill the group either way.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=KILL_WAIT_S)


def _signal_quietly(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def start_dagster_ui(env: Mapping[str, str], host: str, port: int, log_path: Path) -> DagsterUi:
    """`dagster dev` (webserver, daemon for sensors and schedules, code server) in a new session.

    Call it after this process handles SIGINT and SIGTERM itself (`cli.up` does): a
    handled signal is reset to its default in the child, an ignored one stays
    ignored. A shell starting `make up &` leaves SIGINT ignored, and `dagster dev`
    maps SIGTERM onto SIGINT's handler, so its whole tree would ignore both.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) == signal.SIG_IGN:
            raise RuntimeError(f"{signal.Signals(signum).name} is ignored; Dagster would inherit that and not stop")
    log: IO[bytes] = open(log_path, "ab")  # noqa: SIM115 - the child keeps its own copy of the descriptor
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dagster",
                "dev",
                "-w",
                str(REPO_ROOT / "workspace.yaml"),
                "-h",
                host,
                "-p",
                str(port),
            ],
            cwd=REPO_ROOT,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        log.close()
    return DagsterUi(process=process, log_path=log_path, host=host, port=port)


def descendants() -> list[psutil.Process]:
    """Every live process below this one (children, grandchildren, ...)."""
    try:
        return psutil.Process().children(recursive=True)
    except psutil.Error:
        return []


def kill_leftovers(processes: list[psutil.Process], timeout: float = KILL_WAIT_S) -> list[int]:
    """SIGKILL those of `processes` still alive and wait for them; returns the pids that had to be killed."""
    unique = {p.pid: p for p in processes}
    alive = [p for p in unique.values() if _is_running(p)]
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(alive, timeout=timeout)
    return [p.pid for p in alive]


def _is_running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def wait_until(deadline: float) -> float:
    """Seconds left until the monotonic `deadline` (never negative)."""
    return max(deadline - time.monotonic(), 0.0)
