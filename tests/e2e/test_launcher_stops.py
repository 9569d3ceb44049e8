"""Stopping and killing `launcher.cli up` (what `make up` runs): every process ends, both ports are freed.

Each test starts its own platform in a fresh DATA_DIR and ends it: Ctrl-C once the code servers run,
SIGKILL of the launcher during the demo's dbt build, and SIGTERM during the build while a request waits
on the database. The only time bound asserted is the one the launcher promises for SIGINT/SIGTERM
(gone within 10 s); after a SIGKILL the test only waits, generously, for the processes to end.
"""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD
from tests.e2e.test_make_up import (
    DEMO_RUN_S,
    SHUTDOWN_BOUND_S,
    Up,
    login,
    poll,
    start_up,
    stop,
    wait_for_api,
    wait_for_code_location,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_ctrl_c_ends_every_process_within_ten_seconds(tmp_path: Path) -> None:
    """SIGINT once the Dagster code servers run (they used to survive it). SIGTERM takes the same path in
    the launcher; it is sent during a build, with a request stuck on the database, further down."""
    signum = signal.SIGINT
    up = start_up(tmp_path, "--no-demo")
    try:
        wait_for_api(up)
        wait_for_code_location(up)  # the code servers that used to survive are running now
        tree = psutil.Process(up.proc.pid).children(recursive=True)
        assert len(tree) >= 3, [p.cmdline()[:4] for p in tree]  # dagster dev, webserver, daemon, code servers
        up.proc.send_signal(signum)
        try:
            up.proc.wait(timeout=SHUTDOWN_BOUND_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the launcher was still running {SHUTDOWN_BOUND_S:.0f}s after {signum.name}:\n{up.log_tail()}")
        left = [p for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        assert not left, f"left running after {signum.name}: {[(p.pid, p.cmdline()[:5]) for p in left]}"
    finally:
        stop(up)


LAUNCHER_MARK = "DENIAL_PLATFORM_LAUNCHER"  # launcher.guard.MARKER_ENV, written out: the tests look from outside
GONE_WITHIN_S = 120.0  # generous: nothing here is a promise about time, only that the processes end


def _dbt_build_in(processes: list[psutil.Process]) -> psutil.Process | None:
    for process in processes:
        try:
            command = process.cmdline()
        except psutil.Error:
            continue
        if "build" in command and any(Path(part).name == "dbt" for part in command):
            return process
    return None


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _carrying(mark: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(LAUNCHER_MARK) == mark and _running(process):
                found.append(process)
        except psutil.Error:
            continue
    return found


def _port_free(url: str) -> bool:
    """Nothing listens on the URL's port: with SO_REUSEADDR, as servers bind, only a listener stops a bind."""
    port = int(url.rsplit(":", 1)[1])
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _describe(processes: list[psutil.Process]) -> list[tuple[int, list[str]]]:
    described = []
    for process in processes:
        try:
            described.append((process.pid, process.cmdline()[:5]))
        except psutil.Error:
            described.append((process.pid, ["?"]))
    return described


def _posted(up: Up, headers: dict[str, str]) -> list[tuple[str, str, int]]:
    """Every import batch: its file, status and entries posted (what a re-run must not post again)."""
    answer = httpx.get(
        f"{up.api_url}/api/rpc/ingestion.listImportBatches", params={"input": '{"limit": 100}'}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    items = answer.json()["result"]["data"]["items"]
    return sorted((b["sourceFilename"], b["status"], b["entriesPosted"]) for b in items)


def _runs(up: Up, headers: dict[str, str]) -> list[dict[str, Any]]:
    answer = httpx.get(f"{up.api_url}/api/rpc/operations.listRuns", headers=headers, timeout=30.0)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["result"]["data"]["items"])


def test_sigkill_of_the_launcher_during_the_demo_build_leaves_no_process_and_the_next_start_finishes_the_run(
    tmp_path: Path,
) -> None:
    """The launcher killed without a chance to stop anything (kill -9, the OOM killer) while the demo's dbt
    build runs: the Dagster tree (under its guard) and the launcher's own children (dbt) still end. Started
    again on the same DATA_DIR, with nothing else asked of it, the platform finishes the interrupted
    pipeline run by itself (its job given back at once: its worker's process is gone) and publishes, with
    nothing posted twice."""
    up = start_up(tmp_path, "--demo-claims", "20")
    try:
        wait_for_api(up)
        launcher = psutil.Process(up.proc.pid)
        dbt = poll(up, "the demo build's dbt process", DEMO_RUN_S, lambda: _dbt_build_in(launcher.children()))
        headers = login(up)
        posted = _posted(up, headers)
        [interrupted] = _runs(up, headers)
        assert interrupted["status"] == "running", interrupted
        tree = launcher.children(recursive=True)
        names = [" ".join(p.cmdline()[1:4]) for p in tree if _running(p)]
        assert any("dagster dev" in name for name in names), names  # the Dagster UI runs beside the build
        mark = dbt.environ()[LAUNCHER_MARK]
        up.proc.kill()
        up.proc.wait(timeout=30)
        deadline = time.monotonic() + GONE_WITHIN_S
        left = tree
        while time.monotonic() < deadline:
            left = [p for p in tree if _running(p)] + [p for p in _carrying(mark) if p not in tree]
            if not left and _port_free(up.api_url) and _port_free(up.dagster_url):
                break
            time.sleep(0.2)
        assert not left, f"left running after the launcher's SIGKILL: {_describe(left)}"
        assert _port_free(up.api_url) and _port_free(up.dagster_url)
        # Ended, not finished: dbt writes run_results.json when a build completes (the build outlives the
        # bound above on a fast machine, so "gone" alone would not tell a kill from a finished build).
        finished = list(tmp_path.glob("warehouse/build/*/dbt_target/run_results.json"))
        assert finished == [], "dbt ran to the end of its build after the launcher was killed"
        assert not (tmp_path / "warehouse" / "published.json").exists()  # nothing was published half-way
    finally:
        stop(up)

    again = start_up(tmp_path, "--no-demo")
    try:
        wait_for_api(again)
        headers = login(again)

        def interrupted_run_ended() -> dict[str, Any] | None:
            runs = {r["id"]: r for r in _runs(again, headers)}
            run = runs.get(interrupted["id"])
            return run if run and run["status"] in ("succeeded", "failed") else None

        run = poll(again, "the interrupted pipeline run", DEMO_RUN_S, interrupted_run_ended)
        assert run["status"] == "succeeded", f"{run}\n{again.log_tail()}"
        assert [r["id"] for r in _runs(again, headers)] == [interrupted["id"]]  # finished, not run anew
        pointer = json.loads((tmp_path / "warehouse" / "published.json").read_text())
        assert Path(pointer["snapshot"]).is_file() and pointer["tables"]
        assert _posted(again, headers) == posted
    finally:
        stop(again)


def test_sigterm_while_a_request_waits_on_the_database_during_the_build_still_ends_everything_in_ten_seconds(
    tmp_path: Path,
) -> None:
    """An API request stuck in its worker thread (here: waiting for SQLite's write lock, which this test
    holds; the database waits up to 30 s) cannot be cancelled, and uvicorn's exit waits for it: the
    launcher forces its exit instead of breaking its promise. If the request has not reached the database
    when the signal lands, the stop is simply orderly: the test cannot fail for that."""
    up = start_up(tmp_path, "--demo-claims", "20")
    try:
        wait_for_api(up)
        launcher = psutil.Process(up.proc.pid)
        poll(up, "the demo build's dbt process", DEMO_RUN_S, lambda: _dbt_build_in(launcher.children()))
        tree = launcher.children(recursive=True)
        lock = sqlite3.connect(tmp_path / "platform.db", timeout=60, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")  # a login writes (its session, the audit): it waits for this lock
        login = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
        waiting = threading.Thread(
            target=lambda: httpx.post(f"{up.api_url}/api/rpc/auth.login", json=login, timeout=60.0), daemon=True
        )
        waiting.start()
        time.sleep(1.0)  # for the request to reach the database; see the docstring
        up.proc.send_signal(signal.SIGTERM)
        try:
            up.proc.wait(timeout=SHUTDOWN_BOUND_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the launcher was still running {SHUTDOWN_BOUND_S:.0f}s after SIGTERM:\n{up.log_tail()}")
        finally:
            lock.rollback()
            lock.close()
        left = [p for p in tree if _running(p)]
        assert not left, f"left running after SIGTERM: {_describe(left)}"
    finally:
        stop(up)
