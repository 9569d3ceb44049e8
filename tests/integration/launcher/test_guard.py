"""`launcher.guard` with real processes: a stand-in launcher starts a stubborn process tree under the guard
(every process ignores SIGTERM; one escapes into its own session and is orphaned) plus a child of its own;
whatever way the tree is told to end, nothing of it is left. No timing is asserted: the tests poll until
the processes are gone, within a generous bound, and fail naming the survivors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow
GONE_WITHIN_S = 60.0  # generous: a loaded machine; a passing run takes about a second

# The stand-in for `dagster dev`: L ignores SIGTERM and forks A (forks A1) and B (setsid, forks B1, exits,
# so B1 is orphaned in a session of its own); each survivor appends its pid. L exits with argv[2] if given.
TREE = r"""
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
pids = sys.argv[1]
def note():
    with open(pids, "a") as out:
        out.write(f"{os.getpid()}\n")
def forever():
    note()
    while True:
        time.sleep(1)
if os.fork() == 0:
    if os.fork() == 0:
        forever()
    forever()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        forever()
    os._exit(0)
if len(sys.argv) > 2:
    while not os.path.exists(pids) or len(open(pids).read().split()) < 3:
        time.sleep(0.05)
    os._exit(int(sys.argv[2]))
forever()
"""

# The stand-in launcher: marks itself, starts TREE under the guard and a stubborn child of its own, says who is
# who.
LAUNCHER = r"""
import json, os, signal, subprocess, sys, threading
from pathlib import Path
from launcher.supervisor import launcher_marker, start_guarded
out = Path(sys.argv[1])
marker = launcher_marker()
tree = [sys.executable, "-c", sys.argv[2], str(out / "tree.pids"), *sys.argv[3:]]
guarded = start_guarded(tree, env=os.environ, cwd=Path.cwd(), log_path=out / "guard.log", marker=marker)
own = subprocess.Popen([sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                        "while True: time.sleep(1)"])
# Threads besides the main one, as the real launcher has: its SIGKILL ends the main thread before the others.
for _ in range(4):
    threading.Thread(target=signal.pause, daemon=True).start()
(out / "launcher.json").write_text(json.dumps({"guard": guarded.process.pid, "own": own.pid}))
code = guarded.process.wait()
(out / "guard.code").write_text(str(code))
signal.pause()
"""


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _wait_for(what: str, probe: Callable[[], bool], timeout: float = GONE_WITHIN_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        time.sleep(0.1)
    pytest.fail(f"not within {timeout:.0f}s: {what}")


def _survivors(pids: list[int]) -> list[tuple[int, list[str]]]:
    left = []
    for pid in pids:
        if _alive(pid):
            try:
                left.append((pid, psutil.Process(pid).cmdline()[:4]))
            except psutil.Error:
                continue
    return left


def wait_until_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    while _survivors(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _survivors(pids) == [], "still running"


class StandIn:
    """The stand-in launcher and the pids of what it started."""

    def __init__(self, work: Path, *tree_args: str) -> None:
        self.work = work
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(work), TREE, *tree_args], cwd=REPO)
        _wait_for("the stand-in launcher's report", lambda: (work / "launcher.json").exists())
        started = json.loads((work / "launcher.json").read_text())
        self.guard: int = started["guard"]
        self.own: int = started["own"]
        pids = work / "tree.pids"
        _wait_for("the tree's pids", lambda: pids.exists() and len(pids.read_text().split()) >= 4 - len(tree_args))
        self.tree = [int(line) for line in pids.read_text().split()]

    def everything(self) -> list[int]:
        return [self.guard, *self.tree, self.own]


@pytest.fixture
def stand_ins() -> Iterator[list[StandIn]]:
    started: list[StandIn] = []
    yield started
    for stand_in in started:
        for pid in [stand_in.proc.pid, *stand_in.everything()]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        stand_in.proc.wait(timeout=30)


def test_sigkill_of_the_launcher_ends_the_guarded_tree_and_the_launcher_s_own_marked_children(
    tmp_path: Path, stand_ins: list[StandIn]
) -> None:
    stand_in = StandIn(tmp_path)
    stand_ins.append(stand_in)
    assert len(stand_in.tree) == 4 and all(_alive(pid) for pid in stand_in.everything())
    if sys.platform.startswith("linux"):
        # B's orphan is the guard's child once B has exited (subreaper), although it left the tree's session.
        _wait_for(
            "B's orphan re-parented to the guard",
            lambda: any(psutil.Process(pid).ppid() == stand_in.guard for pid in stand_in.tree),
        )
    stand_in.proc.kill()
    stand_in.proc.wait(timeout=30)
    wait_until_gone(stand_in.everything())


def test_sigterm_to_the_guard_ends_its_tree_and_the_guard_but_not_the_living_launcher_s_children(
    tmp_path: Path, stand_ins: list[StandIn]
) -> None:
    stand_in = StandIn(tmp_path)
    stand_ins.append(stand_in)
    os.kill(stand_in.guard, signal.SIGTERM)
    wait_until_gone([stand_in.guard, *stand_in.tree])
    _wait_for("the guard's exit code", lambda: (tmp_path / "guard.code").exists())
    assert (tmp_path / "guard.code").read_text() == str(128 + signal.SIGTERM)
    assert _alive(stand_in.own) and _alive(stand_in.proc.pid)  # the launcher ends its own children itself


def test_a_command_that_exits_leaves_nothing_behind_and_its_code_is_the_guard_s(
    tmp_path: Path, stand_ins: list[StandIn]
) -> None:
    stand_in = StandIn(tmp_path, "3")
    stand_ins.append(stand_in)
    _wait_for("the guard's exit code", lambda: (tmp_path / "guard.code").exists())
    assert (tmp_path / "guard.code").read_text() == "3"
    wait_until_gone([stand_in.guard, *stand_in.tree])
