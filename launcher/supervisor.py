"""The processes `up` runs besides the API, and how all of them stop within a bounded time.

`dagster dev` runs under a guard (`launcher.guard`), each in a session (process group) of its own: a
terminal's Ctrl-C reaches only the launcher, which then stops everything in order, and the guard ends
the whole Dagster tree (webserver, daemon, code servers and their gRPC children) as one. The guard
also ends it when the launcher dies without stopping it (SIGKILL, the out-of-memory killer): it reads
end-of-file on a pipe only the launcher writes to, and on Linux gets a parent-death signal.
Dagster's own orderly shutdown takes 10-17 s (measured), longer than a developer waits, so it gets a
short grace period and then the guard's SIGTERM and SIGKILL; its instance storage is SQLite, which
survives that.
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
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import psutil

from launcher.guard import MARKER_ENV

REPO_ROOT = Path(__file__).resolve().parents[1]
# Shutdown budget (the launcher promises to be gone within 10 s of SIGINT/SIGTERM).
DAGSTER_GRACE_S = 3.0
KILL_WAIT_S = 2.0
GUARD_GRACE_S = 1.0  # the guard's SIGTERM-to-SIGKILL interval once the launcher asks it to end the tree


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
    """A running `dagster dev` under its guard (`process`), and where its output goes.

    `launcher_end` is the write end of the guard's pipe: held, never written, closed only by this
    process's end, which the guard reads as end-of-file.
    """

    process: subprocess.Popen[bytes]
    log_path: Path
    host: str
    port: int
    launcher_end: int = -1
    _interrupted: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def interrupt(self) -> None:
        """Start Dagster's own shutdown: SIGINT to the guard, which forwards it to `dagster dev`, which
        tells its webserver and daemon through their shutdown pipes and closes its code servers."""
        # Once only: a second SIGINT would cut `dagster dev`'s own shutdown short and orphan its children.
        with self._lock:
            if self._interrupted or self.process.poll() is not None:
                return
            self._interrupted = True
        _signal_quietly(self.process.pid, signal.SIGINT)

    def stop(self, grace: float = DAGSTER_GRACE_S) -> None:
        """Interrupt, wait up to `grace` seconds, then have the guard end whatever is left of the tree."""
        self.interrupt()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=max(grace, 0.0))
        # SIGTERM to the guard: SIGTERM to the tree, GUARD_GRACE_S, SIGKILL, and the guard exits.
        _signal_quietly(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=GUARD_GRACE_S + KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            # A guard that does not answer: kill it and its group; the caller kills the descendants it recorded.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=KILL_WAIT_S)


def _signal_quietly(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def launcher_marker() -> str:
    """Mark this process's environment so every process it starts from now on inherits the mark
    (`launcher.guard.MARKER_ENV`); returns the mark, one per launcher run."""
    # Always a new one: a mark inherited from whatever started this process belongs to that process.
    value = f"{os.getpid()}-{uuid.uuid4().hex}"
    os.environ[MARKER_ENV] = value
    return value


@dataclass(frozen=True)
class Guarded:
    """A command running under `launcher.guard`: the guard's process and this process's end of its pipe."""

    process: subprocess.Popen[bytes]
    launcher_end: int


def start_guarded(
    command: list[str], *, env: Mapping[str, str], cwd: Path, log_path: Path, marker: str | None = None
) -> Guarded:
    """`command` under a guard (`launcher.guard`), the guard in a new session, output appended to `log_path`.

    Call it from the main thread: the guard's parent-death signal follows the thread that started it.
    With `marker` (`launcher_marker()`), the guard also ends every process carrying it once this
    process is gone: the launcher's own children (a pipeline run's dbt and parse workers).
    """
    log: IO[bytes] = open(log_path, "ab")  # noqa: SIM115 - the child keeps its own copy of the descriptor
    # os.pipe's descriptors are not inheritable: the write end stays in this process alone.
    guard_end, launcher_end = os.pipe()
    guard = [sys.executable, "-m", "launcher.guard", "--launcher-pid", str(os.getpid()), "--watch-fd", str(guard_end)]
    guard += ["--grace", str(GUARD_GRACE_S), *(["--marker", marker] if marker else []), "--"]
    try:
        process = subprocess.Popen(
            [*guard, *command],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(guard_end,),
        )
    except BaseException:
        os.close(launcher_end)
        raise
    finally:
        log.close()
        os.close(guard_end)
    return Guarded(process, launcher_end)


def start_dagster_ui(
    env: Mapping[str, str], host: str, port: int, log_path: Path, marker: str | None = None
) -> DagsterUi:
    """`dagster dev` (webserver, daemon for sensors and schedules, code server) under a guard
    (`start_guarded`, which says what `marker` does), each in a new session.

    Call it after this process handles SIGINT and SIGTERM itself (`cli.up` does): a
    handled signal is reset to its default in the child, an ignored one stays
    ignored. A shell starting `make up &` leaves SIGINT ignored, and `dagster dev`
    maps SIGTERM onto SIGINT's handler, so its whole tree would ignore both.
    """
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) == signal.SIG_IGN:
            raise RuntimeError(f"{signal.Signals(signum).name} is ignored; Dagster would inherit that and not stop")
    workspace = str(REPO_ROOT / "workspace.yaml")
    command = [sys.executable, "-m", "dagster", "dev", "-w", workspace, "-h", host, "-p", str(port)]
    guarded = start_guarded(command, env=env, cwd=REPO_ROOT, log_path=log_path, marker=marker)
    return DagsterUi(guarded.process, log_path, host, port, launcher_end=guarded.launcher_end)


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
