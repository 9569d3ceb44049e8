"""`make up` as a newcomer runs it: `python -m launcher.cli up` in a fresh DATA_DIR on free ports.

The platform runs as real processes (the launcher with the API in it, `dagster dev`
with its webserver, daemon and code servers); the tests look at it only from the
outside: HTTP, Dagster's GraphQL endpoint, the process table and, for the web console it
serves, a real browser (Playwright in Debian's Chromium: tests/support/console_flow.py).
One platform serves the module, so the demo is built once; the stop and kill tests start
their own (tests/e2e/test_launcher_stops.py).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import sysconfig
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
from tests.support.console_flow import SCREENS, SCREENSHOTS, admin_member, run_console_flow
from tests.support.live_member import Member

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
    """`up` with a small demo corpus, so the background load and first pipeline run are part of it (40
    claims: with fewer, the demo's team has worked every case past `open`, which the console flow filters on)."""
    up = start_up(tmp_path_factory.mktemp("make-up"), "--demo-claims", "40")
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


# The web console in a real browser, on this module's platform. Declared after the "builds once" test on
# purpose: the console's confirmed upload wakes the confirmed-batch sensor, which asks for another run.
@pytest.fixture(scope="module")
def console_run(platform: Up) -> Iterator[dict[str, Any]]:
    """The demo's first build done, two members invited by the admin, then the Playwright run
    (tests/support/console_flow.py): its return code, output, summary and the members."""
    admin_headers = login(platform)
    run = wait_for_demo_run(platform, admin_headers)
    assert run["status"] == "succeeded", f"{run}\n{platform.log_tail()}"
    with httpx.Client(base_url=platform.api_url, timeout=60.0) as http:
        yield run_console_flow(platform.api_url, platform.log_path.parent, admin_member(http, admin_headers))


def test_the_console_main_flows_pass_in_chromium(console_run: dict[str, Any]) -> None:
    assert console_run["returncode"] == 0, console_run["output"]


def test_the_console_screenshots_every_screen(console_run: dict[str, Any]) -> None:
    assert sorted(console_run["summary"]["screens"]) == sorted(SCREENS)
    missing = [name for name in SCREENS if not (SCREENSHOTS / f"{name}.png").is_file()]
    assert not missing


def test_axe_finds_no_serious_or_critical_violation_on_any_console_screen(console_run: dict[str, Any]) -> None:
    violations = {screen: found for screen, found in console_run["summary"]["violations"].items() if found}
    assert set(console_run["summary"]["violations"]) == set(SCREENS)
    assert violations == {}


def test_the_browser_keeps_only_the_session_token_and_urls_carry_ids_only(console_run: dict[str, Any]) -> None:
    summary = console_run["summary"]
    # Before sign-in nothing is stored; after it, the session token alone, and never anything in localStorage.
    assert {"session": ["dps.session"], "local": []} in summary["storage"]
    assert all(s["session"] in ([], ["dps.session"]) and s["local"] == [] for s in summary["storage"])
    assert all(re.fullmatch(r"(#/[a-z]+(/\d+)?)?", url) for url in summary["urls"]), summary["urls"]


def test_no_script_error_reached_the_browser_console(console_run: dict[str, Any]) -> None:
    # The one expected: the deliberately wrong password's 401 answer, which Chromium logs as a failed load.
    errors = [e for e in console_run["summary"]["consoleErrors"] if "status of 401" not in e]
    assert errors == []


def test_the_console_clicks_did_what_the_api_records(console_run: dict[str, Any]) -> None:
    admin: Member = console_run["admin"]
    case_id = console_run["summary"]["caseId"]
    case = admin.query("cases.get", {"id": case_id})
    assert case["case"]["state"] == "won"
    # The decision form's amount defaults to the amount at stake: a full win recovers all of it.
    assert case["case"]["recoveredAmount"] == case["case"]["amountAtStake"]
    assert [n["body"] for n in case["notes"]] == ["Called provider relations; letter on file."]
    assert case["notes"][0]["authorUserId"] == console_run["specialist_id"]

    [action] = admin.query("approvedActions.list", {"caseId": case_id})["items"]
    assert (action["kind"], action["state"]) == ("submit_appeal_packet", "executed")
    assert action["requestedByUserId"] == console_run["specialist_id"]
    decisions = admin.query("approvedActions.get", {"id": action["id"]})["approval"]["decisions"]
    assert [(d["approverUserId"], d["decision"], d["reason"]) for d in decisions] == [
        (console_run["approver_id"], "approve", "Letter and evidence complete")
    ]
    packets = admin.query("appealAssembly.list", {"caseId": case_id})["items"]
    assert [(p["state"], p["decision"], p["letterSource"]) for p in packets] == [("decided", "won", "draft")]
    documents = admin.query("evidenceControl.list", {"caseId": case_id})["items"]
    assert [(d["title"], d["docType"], d["mediaType"]) for d in documents] == [
        ("Signed physician letter", "physician_letter", "application/pdf")
    ]
    [call] = admin.query("payerInteractions.forCase", {"caseId": case_id})["items"]
    assert (call["outcome"], call["referenceNumber"]) == ("appeal_required", "REF-4417")
    assert console_run["summary"]["pdfMagic"] == "%PDF-"


def test_the_repaired_upload_posted_all_three_denials(console_run: dict[str, Any]) -> None:
    admin: Member = console_run["admin"]
    batch_id = console_run["summary"]["batchId"]
    assert admin.query("ingestion.getImportBatch", {"batchId": batch_id})["status"] == "confirmed"
    entries = admin.query("ingestion.listFinancialEntries", {"batchId": batch_id})["items"]
    # By hand from the file: HD-1 300.00 (OA-18), HD-2 250.00 (CO-50, the repaired row), HD-3 90.00 (PI-16).
    assert sorted((e["claimKey"], e["amount"], e["carc"]) for e in entries) == [
        ("HD-1", "300.00", "18"),
        ("HD-2", "250.00", "50"),
        ("HD-3", "90.00", "16"),
    ]
