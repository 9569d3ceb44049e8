"""`make up` as a newcomer runs it: `python -m launcher.cli up` in a fresh DATA_DIR on free ports.

The platform runs as real processes (the launcher with the API in it, `dagster dev`
with its webserver, daemon and code servers); the tests look at it only from the
outside: HTTP, Dagster's GraphQL endpoint and the process table. The only time
bound asserted is the one the launcher promises: gone within 10 s of SIGINT/SIGTERM.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.conftest import REPO
from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, free_port, server_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Readiness bounds are generous on purpose: a busy CI machine parses dbt and loads Dagster slowly.
API_READY_S = 180.0
DAGSTER_READY_S = 420.0
DEMO_RUN_S = 900.0
SHUTDOWN_BOUND_S = 10.0  # what the launcher promises for SIGINT/SIGTERM

WORKSPACE_QUERY = """
query {
  workspaceOrError {
    __typename
    ... on Workspace {
      locationEntries {
        name
        loadStatus
        locationOrLoadError {
          __typename
          ... on PythonError { message causes { message } }
          ... on RepositoryLocation {
            repositories {
              name
              assetNodes {
                assetKey { path }
                assetChecksOrError { __typename ... on AssetChecks { checks { name } } }
              }
              sensors { name }
              schedules { name }
            }
          }
        }
      }
    }
    ... on PythonError { message }
  }
}
"""


@dataclass
class Up:
    """A running `launcher.cli up` and where to reach what it started."""

    proc: subprocess.Popen[bytes]
    api_url: str
    dagster_url: str
    log_path: Path

    def log_tail(self, chars: int = 6000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no launcher log)"


def _two_free_ports() -> tuple[int, int]:
    api = free_port()
    dagster = free_port()
    while dagster == api:
        dagster = free_port()
    return api, dagster


def start_up(data_dir: Path, *args: str) -> Up:
    """Start the platform as `make up` does, with the e2e admin and telemetry off."""
    api_port, dagster_port = _two_free_ports()
    env = server_env(data_dir, None, DAGSTER_DISABLE_TELEMETRY="true", DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    for name in ("DAGSTER_HOME", "DAGSTER_HOST", "DAGSTER_PORT"):
        env.pop(name, None)
    log_path = data_dir / "up.log"
    command = [sys.executable, "-m", "launcher.cli", "up", "--port", str(api_port), "--dagster-port", str(dagster_port)]
    with log_path.open("ab") as out:
        proc = subprocess.Popen([*command, *args], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Up(proc, f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{dagster_port}", log_path)


def poll(up: Up, what: str, timeout: float, probe: Callable[[], Any]) -> Any:
    """`probe()` until it returns something truthy; fails if the launcher exits or `timeout` passes."""
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    while time.monotonic() < deadline:
        if up.proc.poll() is not None:
            pytest.fail(f"the launcher exited with {up.proc.returncode} while waiting for {what}:\n{up.log_tail()}")
        try:
            result = probe()
            if result:
                return result
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            last = f"{type(exc).__name__}: {exc}"[:300]
        time.sleep(0.5)
    pytest.fail(f"{what} not ready within {timeout:.0f}s ({last}):\n{up.log_tail()}")


def wait_for_api(up: Up) -> None:
    poll(up, "the API (/api/health)", API_READY_S, lambda: httpx.get(f"{up.api_url}/api/health").status_code == 200)


def workspace(up: Up) -> dict[str, Any]:
    answer = httpx.post(f"{up.dagster_url}/graphql", json={"query": WORKSPACE_QUERY}, timeout=30.0)
    answer.raise_for_status()
    body = answer.json()
    assert "errors" not in body, body["errors"]
    return body["data"]["workspaceOrError"]


def wait_for_code_location(up: Up) -> dict[str, Any]:
    """The `denial_platform` location entry once Dagster has finished loading it (loaded or failed)."""

    def loaded() -> dict[str, Any] | None:
        entries = workspace(up).get("locationEntries") or []
        entry = next((e for e in entries if e["name"] == "denial_platform"), None)
        return entry if entry is not None and entry["loadStatus"] == "LOADED" else None

    return poll(up, "the Dagster code location", DAGSTER_READY_S, loaded)


def stop(up: Up) -> None:
    """Teardown for a test that did not stop the launcher itself: SIGTERM, then kill its whole tree."""
    if up.proc.poll() is not None:
        return
    tree = psutil.Process(up.proc.pid).children(recursive=True)
    up.proc.send_signal(signal.SIGTERM)
    try:
        up.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        up.proc.kill()
        up.proc.wait(timeout=10)
    for process in tree:
        if process.is_running():
            process.kill()


def login(up: Up) -> dict[str, str]:
    answer = httpx.post(
        f"{up.api_url}/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}, timeout=30.0
    )
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['result']['data']['token']}"}


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    """`up` with a small demo corpus, so the background load and first pipeline run are part of it."""
    up = start_up(tmp_path_factory.mktemp("make-up"), "--demo-claims", "20")
    try:
        wait_for_api(up)
        yield up
    finally:
        stop(up)


def expected_definitions() -> dict[str, set[str]]:
    """What `pipelines.definitions` declares, loaded in this process."""
    from pipelines.definitions import defs

    graph = defs.resolve_asset_graph()
    return {
        "assets": {key.to_user_string() for key in graph.get_all_asset_keys()},
        "checks": {f"{key.asset_key.to_user_string()}:{key.name}" for key in graph.asset_check_keys},
        "sensors": {sensor.name for sensor in defs.sensors or []},
        "schedules": {schedule.name for schedule in defs.schedules or []},
    }


def served_definitions(location: dict[str, Any]) -> dict[str, set[str]]:
    """The same sets as the Dagster webserver shows them."""
    served: dict[str, set[str]] = {"assets": set(), "checks": set(), "sensors": set(), "schedules": set()}
    for repository in location["repositories"]:
        for node in repository["assetNodes"]:
            key = "/".join(node["assetKey"]["path"])
            served["assets"].add(key)
            checks = node["assetChecksOrError"]
            assert checks["__typename"] == "AssetChecks", checks
            served["checks"].update(f"{key}:{check['name']}" for check in checks["checks"])
        served["sensors"].update(sensor["name"] for sensor in repository["sensors"])
        served["schedules"].update(schedule["name"] for schedule in repository["schedules"])
    return served


def test_the_api_answers_before_the_demo_data_is_built(platform: Up) -> None:
    ping = httpx.get(f"{platform.api_url}/api/rpc/system.ping", timeout=10.0)
    assert ping.status_code == 200
    assert ping.json()["result"]["data"]["pong"] is True


def test_dagster_ui_loads_the_code_location_with_every_definition(platform: Up) -> None:
    entry = wait_for_code_location(platform)
    location = entry["locationOrLoadError"]
    assert location["__typename"] == "RepositoryLocation", f"the code location failed to load: {location}"
    served = served_definitions(location)
    expected = expected_definitions()
    assert expected["assets"] and expected["checks"] and expected["sensors"] and expected["schedules"]
    for kind in ("assets", "checks", "sensors", "schedules"):
        assert served[kind] == expected[kind], f"{kind}: missing {expected[kind] - served[kind]}"


def wait_for_demo_run(up: Up, headers: dict[str, str]) -> dict[str, Any]:
    """The demo's first pipeline run once it has finished (succeeded or failed)."""

    def finished_run() -> dict[str, Any] | None:
        answer = httpx.get(f"{up.api_url}/api/rpc/operations.listRuns", headers=headers, timeout=30.0)
        items = answer.json()["result"]["data"]["items"]
        return items[0] if items and items[0]["status"] in ("succeeded", "failed") else None

    return poll(up, "the demo pipeline run", DEMO_RUN_S, finished_run)


def test_the_demo_pipeline_run_shows_in_operations_list_runs(platform: Up) -> None:
    headers = login(platform)
    run = wait_for_demo_run(platform, headers)
    assert run["status"] == "succeeded", f"{run}\n{platform.log_tail()}"
    batches = httpx.get(f"{platform.api_url}/api/rpc/ingestion.listImportBatches", headers=headers, timeout=30.0)
    assert {b["status"] for b in batches.json()["result"]["data"]["items"]} == {"confirmed"}


SENSOR_TICKS_QUERY = """
query {
  sensorOrError(sensorSelector: {repositoryLocationName: "denial_platform", repositoryName: "__repository__",
                                 sensorName: "confirmed_batches_sensor"}) {
    __typename
    ... on Sensor { sensorState { ticks(limit: 20) { status timestamp skipReason runIds } } }
  }
  runsOrError { __typename ... on Runs { results { runId status } } }
}
"""
SENSOR_TICK_S = 240.0  # the daemon ticks the sensor every 30 s once the code location is loaded


def test_the_demo_builds_once_and_the_console_shows_its_steps_not_dagsters_event_log(platform: Up) -> None:
    headers = login(platform)
    wait_for_code_location(platform)

    def finished_run() -> dict[str, Any] | None:
        answer = httpx.get(f"{platform.api_url}/api/rpc/operations.listRuns", headers=headers, timeout=30.0)
        items = answer.json()["result"]["data"]["items"]
        return items[0] if items and items[0]["status"] in ("succeeded", "failed") else None

    run = poll(platform, "the demo pipeline run", DEMO_RUN_S, finished_run)
    finished_at = datetime.fromisoformat(run["finishedAt"]).timestamp()

    def sensor_ticked_after_the_run() -> dict[str, Any] | None:
        answer = httpx.post(f"{platform.dagster_url}/graphql", json={"query": SENSOR_TICKS_QUERY}, timeout=30.0)
        data = answer.json()["data"]
        ticks = data["sensorOrError"]["sensorState"]["ticks"]
        return data if any(t["timestamp"] > finished_at for t in ticks) else None

    data = poll(
        platform, "a confirmed-batch sensor tick after the demo run", SENSOR_TICK_S, sensor_ticked_after_the_run
    )
    ticks = data["sensorOrError"]["sensorState"]["ticks"]
    # The batches the demo confirmed are built by the run it requested: no tick asked for another run.
    assert [t for t in ticks if t["runIds"]] == [], ticks
    assert any("covered by a requested run" in (t["skipReason"] or "") for t in ticks), ticks
    # The Dagster instance holds the demo's run only (the API's job persists it there; the sensor added none).
    assert [r["runId"] for r in data["runsOrError"]["results"]] == [run["dagsterRunId"]]

    console = platform.log_tail(2_000_000)
    assert f"pipeline run {run['id']}: dbt_models done" in console, console[-4000:]
    assert f"pipeline run {run['id']} succeeded in" in console
    # Dagster's event log and dbt's events stay in the UI and the run log, $DATA_DIR/dagster.log.
    assert " - dagster - DEBUG - " not in console
    assert " - dagster - INFO - " not in console
    assert " INFO dagster" not in console, console[-4000:]
    assert "Finished running" not in console  # dbt's summary line
    run_log = (platform.log_path.parent / "dagster.log").read_text(errors="replace")
    assert "Finished running" in run_log and "Finished dbt command" in run_log


@pytest.mark.parametrize(
    ("signum", "args"),
    [
        pytest.param(signal.SIGTERM, ("--no-demo",), id="SIGTERM"),
        # Ctrl-C; with the demo on, the stop may well land while the upload or the pipeline job runs.
        pytest.param(signal.SIGINT, ("--demo-claims", "20"), id="SIGINT"),
    ],
)
def test_a_stop_signal_ends_every_process_within_ten_seconds(
    tmp_path: Path, signum: signal.Signals, args: tuple[str, ...]
) -> None:
    up = start_up(tmp_path, *args)
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


def test_dbt_comes_from_the_project_environment_even_without_it_on_path(tmp_path: Path) -> None:
    """What `dagster dev`'s code server does on load (import the definitions, build the dbt assets from
    the manifest, parsing when it is stale), with a PATH that has no venv."""
    script = (
        "import pipelines.definitions\n"
        "from pipelines.defs.dbt.assets import build_dbt_models\n"
        "from pipelines.defs.dbt.project import dbt_executable, ensure_manifest\n"
        "build_dbt_models()\n"
        "ensure_manifest()\n"
        "print(dbt_executable())\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DAGSTER_IS_DEV_CLI": "1",  # what `dagster dev` sets
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DAGSTER_DISABLE_TELEMETRY": "true",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    dbt = Path(done.stdout.strip().splitlines()[-1])
    assert dbt.parent == Path(sysconfig.get_path("scripts"))
    assert os.access(dbt, os.X_OK)


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


def test_sigkill_of_the_launcher_during_the_demo_build_leaves_no_process_and_frees_both_ports(tmp_path: Path) -> None:
    """The launcher killed without a chance to stop anything (kill -9, the OOM killer) while the demo's dbt
    build runs: the Dagster tree (under its guard) and the launcher's own children (dbt) still end."""
    up = start_up(tmp_path, "--demo-claims", "20")
    try:
        wait_for_api(up)
        launcher = psutil.Process(up.proc.pid)
        dbt = poll(up, "the demo build's dbt process", DEMO_RUN_S, lambda: _dbt_build_in(launcher.children()))
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
    finally:
        stop(up)


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
