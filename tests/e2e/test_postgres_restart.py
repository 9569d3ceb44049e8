"""PostgreSQL restarted under a running API, and stopped for a while: the call caught in it gets a clear
SERVICE_UNAVAILABLE (never a 500), nothing of it is half-saved, and the API recovers by itself, without a
restart, as soon as the database is back. A retried change is saved once.

The database is a cluster of this test's own (tests/support/private_postgres.py), so restarting it
disturbs no other test. "Mid-request" is made certain, not hoped for: the test holds a lock the call
needs, waits until PostgreSQL shows the call's backend waiting on it, and then restarts the server.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, _stop, server_env, start_server
from tests.support.private_postgres import Cluster, private_cluster

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]


def _integration(key: str) -> dict[str, Any]:
    return {"key": key, "name": f"Drop {key}", "config": {"kind": "sftp_drop", "subfolder": key}}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Cluster, httpx.Client, dict[str, str]]]:
    with private_cluster() as cluster:
        with psycopg.connect(cluster.url.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute("create database platform")
        database_url = cluster.url.rsplit("/", 1)[0] + "/platform"
        proc, base_url = start_server(server_env(tmp_path, database_url), tmp_path / "server.log")
        try:
            with httpx.Client(base_url=base_url, timeout=60.0) as http:
                login = http.post("/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
                headers = {"Authorization": f"Bearer {login.json()['result']['data']['token']}"}
                yield cluster, http, headers
        finally:
            _stop(proc)


def _keys(http: httpx.Client, headers: dict[str, str]) -> list[str]:
    answer = http.get("/api/rpc/integrationControl.list", headers=headers)
    assert answer.status_code == 200, answer.text
    return sorted(item["key"] for item in answer.json()["result"]["data"]["items"])


def _wait_for_a_waiting_backend(cluster: Cluster) -> None:
    deadline = time.monotonic() + 30
    with psycopg.connect(cluster.url.replace("+psycopg", "").rsplit("/", 1)[0] + "/platform", autocommit=True) as conn:
        while time.monotonic() < deadline:
            waiting = conn.execute(
                "select count(*) from pg_stat_activity where datname = 'platform' and wait_event_type = 'Lock'"
            ).fetchone()
            if waiting and waiting[0] > 0:
                return
            time.sleep(0.05)
    pytest.fail("the API's call never reached the lock it needs")


def test_a_restart_mid_call_answers_service_unavailable_saves_nothing_and_the_api_recovers_by_itself(stack) -> None:
    cluster, http, headers = stack
    created = http.post("/api/rpc/integrationControl.create", json=_integration("before"), headers=headers)
    assert created.status_code == 200, created.text

    holder = psycopg.connect(cluster.url.replace("+psycopg", "").rsplit("/", 1)[0] + "/platform")
    holder.execute("lock table integrations in access exclusive mode")  # the call below waits for this
    answers: list[httpx.Response] = []
    call = threading.Thread(
        target=lambda: answers.append(
            http.post("/api/rpc/integrationControl.create", json=_integration("during"), headers=headers)
        )
    )
    call.start()
    try:
        _wait_for_a_waiting_backend(cluster)
        cluster.ctl("restart", "-m", "fast")  # every backend is terminated, the waiting call's too
        call.join(timeout=60)
    finally:
        with contextlib.suppress(psycopg.Error):
            holder.close()
    [caught] = answers
    error = caught.json()["error"]
    assert (caught.status_code, error["data"]["code"]) == (503, "SERVICE_UNAVAILABLE"), caught.text
    assert "database" in error["message"], error["message"]
    assert caught.headers.get("Retry-After")

    # The database is back: the API serves again without being restarted, and the caught call left nothing.
    assert _keys(http, headers) == ["before"]
    retried = http.post("/api/rpc/integrationControl.create", json=_integration("during"), headers=headers)
    assert retried.status_code == 200, retried.text
    assert _keys(http, headers) == ["before", "during"]


def test_while_the_database_is_down_calls_and_health_say_so_and_service_resumes_when_it_is_back(stack) -> None:
    cluster, http, headers = stack
    cluster.ctl("stop", "-m", "fast")
    down = http.get("/api/rpc/integrationControl.list", headers=headers)
    error = down.json()["error"]
    assert (down.status_code, error["data"]["code"]) == (503, "SERVICE_UNAVAILABLE"), down.text
    assert "database" in error["message"]
    health = http.get("/api/health")
    assert health.status_code == 503, health.text

    cluster.ctl("start")
    assert _keys(http, headers) == []
    assert http.get("/api/health").status_code == 200
