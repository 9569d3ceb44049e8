"""A guard between the launcher and a process tree it starts: the tree never outlives the launcher.

    python -m launcher.guard --launcher-pid PID --watch-fd FD [--marker VALUE] [--grace S] -- COMMAND...

The launcher starts the guard (in a session of its own) and the guard starts COMMAND (`dagster dev`) in
another session, so the guard can signal COMMAND's whole process group without signalling itself.
The guard learns of the launcher's end from the operating system, whatever way the launcher ends
(orderly, SIGKILL, the out-of-memory killer):

- a pipe whose write end only the launcher holds: its read end, FD, reads end-of-file once the launcher
  is gone, on every POSIX system;
- on Linux also a parent-death signal (``PR_SET_PDEATHSIG``: SIGUSR1, a signal of its own, to the guard
  when the thread that started it ends; the launcher starts it from its main thread), checked right
  after it is set, since the launcher may have died before. Its own signal, not SIGTERM: when a
  multi-threaded launcher is killed, its main thread can end before the others, and until they have,
  the guard's parent is still the launcher and the pipe still open; a SIGTERM would look like the
  launcher's orderly request and the launcher's other children would be spared (measured: dbt survived
  the launcher's SIGKILL that way);
- on Linux it is a child subreaper (``PR_SET_CHILD_SUBREAPER``): processes COMMAND's tree orphans (a code
  server whose `dagster dev` died first) are re-parented to the guard instead of init, so they are still
  its descendants when it looks for them.

Signals from the launcher: SIGINT starts COMMAND's own orderly shutdown (forwarded once to COMMAND);
SIGTERM (or SIGHUP) ends the tree now. Either the launcher's end or SIGTERM: SIGTERM to the tree,
`--grace` seconds, then SIGKILL to whatever is left, rounds repeated until nothing is; then the guard
exits. When the launcher is gone the guard also ends every process carrying ``MARKER_ENV=VALUE`` in its
environment: the launcher sets it on itself first, so its other children (the pipeline run's dbt
subprocess, its parse workers) inherit it and are found although they were re-parented to init.
When COMMAND exits by itself, the guard ends what COMMAND left behind and exits with COMMAND's code.

The decisions (which processes belong to the tree, in what order; what an event means) are pure
functions over plain values, tested without processes.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import enum
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType

import psutil

#: The environment variable marking every process a launcher started (value: one per launcher run).
MARKER_ENV = "DENIAL_PLATFORM_LAUNCHER"
DEFAULT_GRACE_S = 1.0
POLL_S = 0.1
#: After the grace period, SIGKILL rounds until nothing is left; a tree that keeps forking faster than
#: this cannot be ended by signals at all, and the guard gives up rather than spin forever.
KILL_ROUNDS = 20

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


# -- pure decisions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """What the guard needs to know about one process: its parent and its process group."""

    ppid: int
    pgid: int


def tree_members(
    table: Mapping[int, Proc],
    guard: int,
    groups: Iterable[int] = (),
    marked: Iterable[int] = (),
    spare: Iterable[int] = (),
) -> list[int]:
    """The pids to end: the guard's descendants, the members of `groups`, the `marked` pids, never the
    guard itself nor the `spare` pids (the launcher), parents before their children.

    Parents first: a supervisor (`dagster dev` restarts a code server that dies) that is signalled before
    its children has no chance to replace a child killed under it.
    """
    spared = {guard, *spare}
    children: dict[int, list[int]] = {}
    for pid, proc in table.items():
        children.setdefault(proc.ppid, []).append(pid)
    wanted = {pid for pid, proc in table.items() if proc.pgid in set(groups)} | set(marked)
    wanted |= set(_descendants(children, guard))
    wanted = {pid for pid in wanted if pid in table and pid not in spared}
    depth = {pid: _depth(table, pid) for pid in wanted}
    return sorted(wanted, key=lambda pid: (depth[pid], pid))


def _descendants(children: Mapping[int, list[int]], root: int) -> list[int]:
    found: list[int] = []
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def _depth(table: Mapping[int, Proc], pid: int) -> int:
    depth, seen = 0, {pid}
    while pid in table and table[pid].ppid not in seen:
        pid = table[pid].ppid
        seen.add(pid)
        depth += 1
    return depth


class Action(enum.Enum):
    WAIT = "wait"
    INTERRUPT = "interrupt"  # forward SIGINT to the command: its own orderly shutdown
    END_TREE = "end tree"  # SIGTERM, grace, SIGKILL to the tree, then exit
    END_TREE_AND_MARKED = "end tree and marked"  # the launcher is gone: its other children too
    END_LEFTOVERS = "end leftovers"  # the command exited: what it left behind, then exit with its code


def next_action(*, launcher_gone: bool, terminate: bool, interrupt: bool, command_exited: bool) -> Action:
    """What the guard does about what it has seen since its last look; the launcher's end comes first."""
    if launcher_gone:
        return Action.END_TREE_AND_MARKED
    if terminate:
        return Action.END_TREE
    if command_exited:
        return Action.END_LEFTOVERS
    return Action.INTERRUPT if interrupt else Action.WAIT


def exit_code(status: int) -> int:
    """A shell's exit code for a `waitpid` status: the code, or 128 + the signal that ended it."""
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


# -- the operating system ---------------------------------------------------------------------------


def _prctl(option: int, value: int) -> bool:
    """`prctl(option, value)` on Linux; False where there is no prctl (or it refused)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return bool(libc.prctl(option, value, 0, 0, 0) == 0)


def process_table() -> dict[int, Proc]:
    """Every process visible now, with its parent and process group (vanishing ones left out)."""
    table: dict[int, Proc] = {}
    for process in psutil.process_iter(["ppid"]):
        with contextlib.suppress(OSError, psutil.Error):
            table[process.pid] = Proc(ppid=process.info["ppid"], pgid=os.getpgid(process.pid))
    return table


def marked_pids(value: str) -> list[int]:
    """The processes whose environment carries ``MARKER_ENV=value`` (this user's: others' are unreadable)."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if process.environ().get(MARKER_ENV) == value:
                found.append(process.pid)
    return found


class Guard:
    """The running guard: its command, what it has been told, and how it ends the tree."""

    def __init__(self, launcher_pid: int, watch_fd: int | None, marker: str | None, grace: float) -> None:
        self.launcher_pid = launcher_pid
        self.watch_fd = watch_fd
        self.marker = marker
        self.grace = grace
        self.terminate = False
        self.interrupt = False
        self.interrupted = False
        self.launcher_gone = False
        self.command_pid = 0
        self.command_status: int | None = None

    def arm(self) -> None:
        """Subreaper and parent-death signal, then the check that the launcher was not gone before."""
        signal.signal(signal.SIGTERM, self._on_terminate)
        signal.signal(signal.SIGHUP, self._on_terminate)
        signal.signal(signal.SIGINT, self._on_interrupt)
        signal.signal(signal.SIGUSR1, self._on_launcher_death)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_PDEATHSIG, signal.SIGUSR1)
        if os.getppid() != self.launcher_pid:
            self.launcher_gone = True

    def _on_terminate(self, signum: int, frame: FrameType | None) -> None:
        self.terminate = True

    def _on_launcher_death(self, signum: int, frame: FrameType | None) -> None:
        self.launcher_gone = True

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        self.interrupt = True

    def start(self, command: Sequence[str]) -> None:
        # A session of its own: the command's process group is not the guard's, so killpg spares the guard.
        process = subprocess.Popen(list(command), start_new_session=True)
        self.command_pid = process.pid

    def run(self) -> int:
        """Watch until the launcher ends, asks to stop, or the command exits; end the tree; the exit code."""
        while True:
            self._look(POLL_S)
            action = next_action(
                launcher_gone=self.launcher_gone,
                terminate=self.terminate,
                interrupt=self.interrupt and not self.interrupted,
                command_exited=self.command_status is not None,
            )
            if action is Action.INTERRUPT:
                self.interrupted = True
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.command_pid, signal.SIGINT)
            elif action is not Action.WAIT:
                self.end_tree(marked=action is Action.END_TREE_AND_MARKED)
                self._look(0)
                if self.launcher_gone and action is not Action.END_TREE_AND_MARKED:
                    # The launcher died while the tree was ending: its other children are left to end.
                    self.end_tree(marked=True)
                if action is Action.END_LEFTOVERS and self.command_status is not None:
                    return exit_code(self.command_status)
                return 128 + signal.SIGTERM  # ended on request, whatever the command's own status

    def _look(self, timeout: float) -> None:
        """Wait up to `timeout` for the launcher's pipe, then reap exited children (orphans included)."""
        if self.watch_fd is not None and not self.launcher_gone:
            with contextlib.suppress(InterruptedError):
                readable, _, _ = select.select([self.watch_fd], [], [], timeout)
                if readable and os.read(self.watch_fd, 4096) == b"":
                    self.launcher_gone = True
        else:
            time.sleep(timeout)
        if os.getppid() != self.launcher_pid:
            self.launcher_gone = True
        self._reap()

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.command_pid:
                self.command_status = status

    def end_tree(self, *, marked: bool) -> None:
        """SIGTERM to the tree, `grace` seconds for it to go, then SIGKILL rounds until nothing is left."""
        spare = [self.launcher_pid]
        marks = marked_pids(self.marker) if marked and self.marker else []
        victims = tree_members(process_table(), os.getpid(), [self.command_pid], marks, spare)
        # One line on the command's log (no arguments: they could name data): what ended, and why.
        reason = "the launcher is gone" if marked else "asked to stop" if self.terminate else "the command exited"
        print(f"launcher.guard: {reason}; ending {victims} (marked: {marks})", file=sys.stderr, flush=True)
        _signal_all(victims, signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while victims and time.monotonic() < deadline:
            time.sleep(POLL_S / 2)
            self._reap()
            victims = [pid for pid in victims if _alive(pid)]
        for _ in range(KILL_ROUNDS):
            # Again from the table: a process may have forked since; marked ones are still marked.
            marks = [pid for pid in marks if _alive(pid)]
            victims = tree_members(process_table(), os.getpid(), [self.command_pid], marks, spare)
            victims = [pid for pid in victims if _alive(pid)]
            if not victims:
                return
            _signal_all(victims, signal.SIGKILL)
            time.sleep(POLL_S / 2)
            self._reap()


def _signal_all(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def _alive(pid: int) -> bool:
    """Running and not a zombie (a zombie is dead; its parent, possibly this guard, has yet to reap it)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m launcher.guard", description=__doc__.splitlines()[0])
    parser.add_argument("--launcher-pid", type=int, required=True, help="the process whose end ends the tree")
    parser.add_argument("--watch-fd", type=int, help="read end of a pipe only the launcher can write to")
    parser.add_argument("--marker", help=f"also end the processes with {MARKER_ENV}=MARKER when the launcher is gone")
    parser.add_argument("--grace", type=float, default=DEFAULT_GRACE_S, help="seconds between SIGTERM and SIGKILL")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to run and guard")
    args = parser.parse_args(argv)
    args.command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not args.command:
        parser.error("a command to run is required after --")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the guard; its exit code is the command's, or 128 + SIGTERM when it ended the tree itself."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    guard = Guard(args.launcher_pid, args.watch_fd, args.marker, args.grace)
    guard.arm()
    if guard.launcher_gone:
        return 128 + signal.SIGTERM  # nothing started yet: nothing to end
    guard.start(args.command)
    return guard.run()


if __name__ == "__main__":
    sys.exit(main())
