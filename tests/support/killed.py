"""Kill a test worker process at a chosen point: it writes a marker file where it pauses (a listener on the
database, a wrapper around a standard-library call), and the test SIGKILLs it there, as kill -9 or the
out-of-memory killer would: no cleanup, no `finally`, no atexit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import REPO


def kill_at_marker(script: Path, *args: str, marker: Path, what: str, timeout: float = 60.0) -> bytes:
    """Run `script` with `args` (PYTHONPATH = the repository), wait for it to write `marker`, SIGKILL it
    and answer what it had printed. Fails the test if it exits first or never gets there."""
    worker = subprocess.Popen(
        [sys.executable, str(script), *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + timeout
        while not marker.exists():
            if worker.poll() is not None:
                stderr = worker.stderr.read().decode(errors="replace") if worker.stderr else ""
                pytest.fail(f"the worker exited before {what}: {stderr[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the worker never reached {what}")
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == -signal.SIGKILL
    return worker.stdout.read() if worker.stdout else b""
