"""GET /api/health against real databases: ok, unreachable database, stuck queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.infra.jobs import queue
from api.infra.jobs.models import Job

OK_KEYS = {"status", "checks"}
DATABASE_OK_KEYS = {"status", "latencyMs"}
QUEUE_OK_KEYS = {"status", "depth", "oldestAgeSeconds"}
FAIL_KEYS = {"status", "error"}
NEVER_MENTIONED = ("oidc", "billing", "smart", "jwks", "signing", "webhook", "provider")


def assert_no_integrations_named(text: str) -> None:
    lowered = text.lower()
    assert not [word for word in NEVER_MENTIONED if word in lowered], text


def test_health_ok_has_exactly_the_documented_keys(http):
    r = http.get("/api/health")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == OK_KEYS and body["status"] == "ok"
    assert set(body["checks"]) == {"database", "queue"}
    assert set(body["checks"]["database"]) == DATABASE_OK_KEYS
    assert set(body["checks"]["queue"]) == QUEUE_OK_KEYS
    assert body["checks"]["queue"]["depth"] >= 0
    assert r.headers["cache-control"] == "no-store"
    assert_no_integrations_named(r.text)


def test_health_reports_queue_depth_and_age(http, services):
    with services.database.transaction() as db:
        before = http.get("/api/health").json()["checks"]["queue"]["depth"]
        job = queue.enqueue(db, "test.health.depth", {}, run_after=utcnow() - timedelta(seconds=90))
    try:
        q = http.get("/api/health").json()["checks"]["queue"]
        assert q["depth"] == before + 1
        assert q["oldestAgeSeconds"] >= 90
    finally:
        with services.database.transaction() as db:
            db.execute(delete(Job).where(Job.id == job.id))


def unreachable_app(tmp_path, url: str):
    settings = Settings(
        data_dir=tmp_path,
        database_url=url,
        billing_webhook_secret="configured-but-secret",
        oidc_issuer="https://idp.example",
        oidc_audience="platform",
        job_worker_enabled=False,
    )
    services = build_services(settings)
    return services, create_app(services=services)


@pytest.mark.parametrize("kind", ["postgres-closed-port", "sqlite-directory"])
def test_unreachable_database_answers_503_naming_the_check(tmp_path, kind):
    if kind == "postgres-closed-port":
        url = "postgresql://postgres:hunter2@127.0.0.1:9/nowhere"
    else:
        (tmp_path / "db-is-a-directory").mkdir()
        url = f"sqlite:///{tmp_path / 'db-is-a-directory'}"
    services, app = unreachable_app(tmp_path, url)
    try:
        r = TestClient(app).get("/api/health")  # no lifespan: nothing else touches the database
    finally:
        services.close()
    assert r.status_code == 503
    body = r.json()
    assert set(body) == OK_KEYS and body["status"] == "fail"
    assert body["checks"]["database"]["status"] == "fail"
    assert set(body["checks"]["database"]) == FAIL_KEYS
    assert set(body["checks"]["queue"]) == FAIL_KEYS
    assert "hunter2" not in r.text and "127.0.0.1" not in r.text and str(tmp_path) not in r.text
    assert_no_integrations_named(r.text)


def test_queue_stuck_beyond_15_minutes_fails_only_while_the_worker_is_enabled(services, tmp_path):
    with services.database.transaction() as db:
        job = queue.enqueue(db, "test.health.stuck", {}, run_after=utcnow() - timedelta(minutes=20))
    enabled = build_services(
        Settings(data_dir=tmp_path, database_url=services.settings.database_url, job_worker_enabled=True)
    )
    try:
        # Without the lifespan the worker never starts, so the job stays stuck for the check.
        r = TestClient(create_app(services=enabled)).get("/api/health")
        assert r.status_code == 503
        q = r.json()["checks"]["queue"]
        assert q == {"status": "fail", "depth": q["depth"], "oldestAgeSeconds": q["oldestAgeSeconds"], "error": "stuck"}
        assert q["oldestAgeSeconds"] >= 20 * 60
        assert r.json()["checks"]["database"]["status"] == "ok"
        # This instance runs no worker: the same queue is reported but does not fail its health.
        disabled = TestClient(create_app(services=services)).get("/api/health")
        assert disabled.status_code == 200
    finally:
        enabled.close()
        with services.database.transaction() as db:
            db.execute(delete(Job).where(Job.id == job.id))
