"""The deployment profile past one machine (deploy/compose.yaml), run as local processes with the compose
services' commands and environment: PostgreSQL for the operational database, the warehouse and Dagster's
storage (fresh databases on the shared test server); `migrate`, `bootstrap`, `dagster-home` once; two
API processes (`serve`, JOB_WORKER_ENABLED=false) behind a load balancer; the job worker process
(`worker`); `dagster-daemon run`. Through the balancer: sign in, upload and confirm a hand-written 835,
`operations.runPipeline` (run by the worker process, its marts built on the PostgreSQL warehouse and
exported to the DuckDB snapshot on the shared DATA_DIR), then a mart-backed read from both API processes.

What it does not prove: the containers themselves (image build, nginx, Docker networking, a shared
filesystem across hosts); tests/unit/deploy/test_compose.py checks the compose file's structure.

Expected figures by hand from tests/fixtures/x12/hand/cases_denial.835 (payer HAND CASES PAYER):
CSD-1 paid 120.00 (CLP04), CSD-2 paid 0 (denied, CLP02 4), CSD-3 paid 50.00: 3 claims adjudicated,
170.00 paid (= BPR02, the payment's total).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import psutil
import psycopg
import pytest

from tests.conftest import REPO, create_pg_database, drop_pg_database, require_postgres
from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, LiveServer, free_port, server_env
from tests.support.live_member import Member, founder_of_new_organization
from tests.support.tcp_balancer import balancing

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.postgres]

HAND = Path(__file__).resolve().parents[1] / "fixtures" / "x12" / "hand"
STARTUP_TIMEOUT_S = 90.0
PIPELINE_TIMEOUT_S = 300.0
MARK = "DEPLOYMENT_PROFILE_TEST"  # every process of the profile carries it: strays are found by it


@dataclass
class Profile:
    lb_url: str
    api_logs: list[Path]
    worker_log: Path
    daemon_log: Path
    dagster_pg_url: str
    processes: list[subprocess.Popen[bytes]]


def _start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        # A process group of its own: the end of the test ends it with everything it started.
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _cli_once(env: dict[str, str], log: Path, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "launcher.cli", *args], cwd=REPO, env=env, capture_output=True, timeout=180
    )
    log.write_bytes(log.read_bytes() + done.stdout + done.stderr if log.exists() else done.stdout + done.stderr)
    assert done.returncode == 0, f"launcher.cli {' '.join(args)}: {done.stdout[-2000:]!r} {done.stderr[-2000:]!r}"


def _wait_ping(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"exited {proc.returncode}: {log.read_text(errors='replace')[-3000:]}"
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/rpc/system.ping", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer: {log.read_text(errors='replace')[-3000:]}")


def _end(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every group, SIGKILL what is left after a grace, then any process still carrying the mark."""
    for proc in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _marked(mark: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            # A zombie has ended already (its parent, killed, left it to init to reap).
            if process.status() != psutil.STATUS_ZOMBIE and process.environ().get(MARK) == mark:
                found.append(process)
    return found


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> Iterator[Profile]:
    admin = require_postgres()
    data_dir = tmp_path_factory.mktemp("deployment-profile")
    databases = [create_pg_database(admin) for _ in range(3)]
    operational, warehouse, dagster = databases
    mark = uuid.uuid4().hex
    env = server_env(
        data_dir,
        operational.replace("postgresql://", "postgresql+psycopg://", 1),
        WAREHOUSE_URL=warehouse,
        DAGSTER_PG_URL=dagster.replace("postgresql://", "postgresql+psycopg2://", 1),
        DAGSTER_HOME=str(data_dir / "dagster"),
        JOB_WORKER_ENABLED="false",
        JOB_POLL_SECONDS="0.2",
        DAGSTER_DISABLE_TELEMETRY="true",
        DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        **{MARK: mark},
    )
    processes: list[subprocess.Popen[bytes]] = []
    try:
        setup_log = data_dir / "migrate.log"
        for step in ("migrate", "bootstrap", "dagster-home"):  # the compose file's one-shot `migrate` service
            _cli_once(env, setup_log, step)
        ports = [free_port(), free_port()]
        api_logs = [data_dir / f"api-{i}.log" for i in range(2)]
        for port, log in zip(ports, api_logs, strict=True):
            serve = [sys.executable, "-m", "launcher.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
            processes.append(_start(serve, env, log))
        worker_log, daemon_log = data_dir / "worker.log", data_dir / "dagster-daemon.log"
        processes.append(_start([sys.executable, "-m", "launcher.cli", "worker", "--grace", "5"], env, worker_log))
        daemon = [str(Path(sys.executable).with_name("dagster-daemon")), "run", "-w", "workspace.yaml"]
        processes.append(_start(daemon, env, daemon_log))
        for port, log, proc in zip(ports, api_logs, processes, strict=False):
            _wait_ping(f"http://127.0.0.1:{port}", proc, log)
        with balancing([("127.0.0.1", port) for port in ports]) as lb:
            yield Profile(lb.url, api_logs, worker_log, daemon_log, dagster, processes)
    finally:
        _end(processes)
        strays = _marked(mark)
        for stray in strays:
            with contextlib.suppress(psutil.Error):
                stray.kill()
        for url in databases:
            drop_pg_database(admin, url)
        assert not strays, f"processes outlived the profile: {strays}"


def _member(profile: Profile) -> tuple[Member, httpx.Client]:
    # No keep-alive: every request is a new connection, which the balancer gives to the next API process.
    http = httpx.Client(base_url=profile.lb_url, timeout=60, limits=httpx.Limits(max_keepalive_connections=0))
    server = LiveServer(profile.lb_url, "postgres", ADMIN_EMAIL, ADMIN_PASSWORD, 0, profile.api_logs[0])
    return founder_of_new_organization(http, server, "Deployment Hospital Group", "Deployment Hospital"), http


def _wait_for_run(member: Member, run_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + PIPELINE_TIMEOUT_S
    while time.monotonic() < deadline:
        run = member.query("operations.getRun", {"runId": run_id})
        if run["status"] in ("succeeded", "failed"):
            return run
        time.sleep(1.0)
    raise AssertionError(f"pipeline run {run_id} did not finish in {PIPELINE_TIMEOUT_S:.0f} s")


def _served(log: Path, procedure: str) -> int:
    return log.read_text(errors="replace").count(f"/api/rpc/{procedure}")


def test_the_profile_runs_the_pipeline_and_serves_its_marts_from_every_api_process(profile):
    member, http = _member(profile)
    try:
        path = HAND / "cases_denial.835"
        upload = http.post(
            "/api/rpc/ingestion.uploadEra",
            files={"file": (path.name, path.read_bytes(), "application/octet-stream")},
            headers=member.headers,
        )
        assert upload.status_code == 200, upload.text
        member.mutation("ingestion.confirmImportBatch", {"batchId": upload.json()["result"]["data"]["batch"]["id"]})

        run = _wait_for_run(member, member.mutation("operations.runPipeline", {})["id"])
        worker_said = profile.worker_log.read_text(errors="replace")
        assert run["status"] == "succeeded", (run, worker_said[-4000:])
        assert f"pipeline run {run['id']} succeeded" in worker_said  # the worker process ran it, no API process

        answers = [member.query("payerIntelligence.scorecard", {})["items"] for _ in range(4)]
    finally:
        http.close()
    for items in answers:
        by_payer = {i["payerKey"]: (i["claimsAdjudicated"], Decimal(str(i["paidAmount"]))) for i in items}
        assert by_payer == {"HAND CASES PAYER": (3, Decimal("170.00"))}
    # Both API processes answered the mart read (round robin per connection: two each). A process writes its
    # access-log line as the answer leaves, so the last line may land just after the client has it: wait
    # for all four lines (briefly) before comparing.
    deadline = time.monotonic() + 10.0
    served = [_served(log, "payerIntelligence.scorecard") for log in profile.api_logs]
    while sum(served) < len(answers) and time.monotonic() < deadline:
        time.sleep(0.1)
        served = [_served(log, "payerIntelligence.scorecard") for log in profile.api_logs]
    assert served == [2, 2]
    for log in profile.api_logs:
        assert "pipeline run" not in log.read_text(errors="replace")  # JOB_WORKER_ENABLED=false: no worker here

    # Dagster's storage is the PostgreSQL database: the worker's run is recorded there, and the daemon
    # (run queue, sensors, schedules) beats there.
    with psycopg.connect(profile.dagster_pg_url) as conn:
        recorded = conn.execute("select status from runs where run_id = %s", [run["dagsterRunId"]]).fetchone()
        daemons = {row[0] for row in conn.execute("select daemon_type from daemon_heartbeats").fetchall()}
    assert recorded == ("SUCCESS",)
    assert {"QUEUED_RUN_COORDINATOR", "SENSOR", "SCHEDULER"} <= daemons, profile.daemon_log.read_text()[-3000:]
