"""Heavy work on hostile input, in a child process whose memory and CPU time are capped.

Extracting text from an uploaded PDF or DOCX, or rendering a packet, runs code whose cost on a
crafted file nobody can bound in advance (third-party parsers). Run in the API's own process, one
such file could take the process's memory or hold a worker for minutes. Here it runs in a fresh
interpreter that caps its own address space (``RLIMIT_AS``) and CPU time (``RLIMIT_CPU``) before
importing the work, as the spreadsheet reader already does (``pipelines.ingest.tabular.sheet_child``):
running out of either ends the child, never the API.

    result = run_capped("api.evidence.evidence_control.extraction:extract", data,
                        {"max_pages": 2000}, memory_bytes=512 * MiB, cpu_seconds=20)

The target is ``"package.module:function"``, a pure top-level function called as
``function(payload: bytes, **params)``; its result must be JSON (so the parent never unpickles what a
process fed with hostile bytes produced). If it raises ``api.core.errors.InvalidInput`` the message
(written by our code, never the file's content) is raised again here as ``InvalidInput``: that is
how a function refuses a file ("this PDF has 30,000 pages; the limit is 2,000"). Every other failure
raises `CappedWorkFailed` with a reason and no data.

At most ``os.cpu_count()`` children run at once; a call that waits longer than `QUEUE_WAIT_SECONDS`
for a slot is answered ``RateLimited`` (retry) instead of piling up memory-capped children.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from typing import Any, Literal

from api.core.errors import InvalidInput, RateLimited

Reason = Literal["memory", "time", "crashed", "error"]

QUEUE_WAIT_SECONDS = 30
EXIT_REFUSED = 2
EXIT_ERROR = 3
EXIT_MEMORY = 4
_SLOTS = threading.BoundedSemaphore(max(1, os.cpu_count() or 1))


class CappedWorkFailed(Exception):
    """The capped child did not produce a result; `reason` says why (no data in the message)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(f"capped work failed: {reason}")
        self.reason: Reason = reason


def run_capped(
    target: str,
    payload: bytes,
    params: dict[str, Any] | None = None,
    *,
    memory_bytes: int,
    cpu_seconds: int,
) -> Any:
    """Run ``target(payload, **params)`` in a capped child process and return its JSON result."""
    if not _SLOTS.acquire(timeout=QUEUE_WAIT_SECONDS):
        raise RateLimited("The server is busy reading other files; retry shortly", retry_after=5)
    try:
        return _run(target, payload, params or {}, memory_bytes, cpu_seconds)
    finally:
        _SLOTS.release()


def _run(target: str, payload: bytes, params: dict[str, Any], memory_bytes: int, cpu_seconds: int) -> Any:
    header = json.dumps({"target": target, "params": params}).encode()
    # The child sees the modules the parent sees (a checkout run without installing, tests).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "api.infra.capped", str(memory_bytes), str(cpu_seconds)],
            input=len(header).to_bytes(4, "big") + header + payload,
            capture_output=True,
            env=env,
            # CPU time is capped in the child; the wall clock covers a child blocked on something else.
            timeout=cpu_seconds * 3 + 10,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CappedWorkFailed("time") from None
    code = done.returncode
    if code == 0:
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise CappedWorkFailed("crashed") from None
    if code == EXIT_REFUSED:
        raise InvalidInput(done.stderr.decode("utf-8", "replace").strip()[:500] or "The file was refused")
    if code in (EXIT_MEMORY, -signal.SIGABRT):
        raise CappedWorkFailed("memory")
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        raise CappedWorkFailed("time")
    raise CappedWorkFailed("error" if code == EXIT_ERROR else "crashed")
