"""The durable job queue on real SQLite and PostgreSQL databases."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import delete, func, select

from api.infra.db.base import utcnow
from api.infra.jobs import queue
from api.infra.jobs.handlers import HandlerRegistry, JobContext, register_handler
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker


def unique_kind(name: str) -> str:
    # The session database is shared by all tests: kinds keep each test to its own jobs.
    return f"test.{name}.{uuid.uuid4().hex[:10]}"


def job_row(database, job_id: int) -> Job:
    with database.session() as db:
        return db.get(Job, job_id)


def wait_for(database, job_id: int, statuses: set[str], timeout: float = 15.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = job_row(database, job_id)
        if job.status in statuses:
            return job
        time.sleep(0.02)
    raise AssertionError(f"job {job_id} still {job_row(database, job_id).status} after {timeout}s")


@pytest.fixture
def database(services):
    yield services.database
    # The session database is shared: leave no test job behind for later tests (health counts the queue).
    with services.database.transaction() as db:
        db.execute(delete(Job).where(Job.kind.like("test.%")))


def test_worker_runs_a_registered_handler_and_stores_its_result(database):
    kind = unique_kind("double")
    seen: list[JobContext] = []

    @register_handler(kind)
    def double(ctx: JobContext) -> dict:
        seen.append(ctx)
        with ctx.database.session() as db:  # handlers open their own transactions
            queued = db.scalar(select(func.count()).select_from(Job).where(Job.id == ctx.job_id))
        return {"doubled": ctx.payload["n"] * 2, "visible": queued}

    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {"n": 21}).id
    worker = Worker(database, kinds=[kind], poll_seconds=0.02)
    worker.start()
    try:
        job = wait_for(database, job_id, {"succeeded", "failed", "dead"})
    finally:
        worker.stop()
    assert not worker.running
    assert job.status == "succeeded"
    assert job.result == {"doubled": 42, "visible": 1}
    assert job.attempts == 1 and job.finished_at is not None and job.locked_by is None
    assert seen[0].attempt == 1 and seen[0].kind == kind


def test_failing_job_retries_with_backoff_then_goes_dead(database):
    kind = unique_kind("flaky")
    registry = HandlerRegistry()
    calls: list[float] = []

    @registry.register(kind)
    def always_fails(ctx: JobContext):
        calls.append(time.monotonic())
        raise ValueError("Jane Roe could not be parsed")  # PHI-like text must not be recorded

    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {"batch_id": 1}, max_attempts=3).id
    worker = Worker(database, registry=registry, kinds=[kind], poll_seconds=0.02, retry_base_seconds=0.1)
    worker.start()
    try:
        job = wait_for(database, job_id, {"dead", "succeeded"})
    finally:
        worker.stop()
    assert job.status == "dead"
    assert job.attempts == 3 and len(calls) == 3
    assert job.last_error == "ValueError"
    # Backoff: the second retry waited about twice as long as the first.
    assert calls[1] - calls[0] >= 0.1 and calls[2] - calls[1] >= 0.2


def test_fail_requeues_until_max_attempts(database):
    kind = unique_kind("manual")
    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {}, max_attempts=2).id
    now = utcnow()
    first = queue.claim_next(database, "w1", kinds=[kind], now=now)
    assert first.id == job_id and first.status == "running" and first.attempts == 1
    assert queue.fail(database, first, queue.JobError("upstream busy"), now=now, retry_base_seconds=60) == "queued"
    row = job_row(database, job_id)
    assert row.last_error == "JobError: upstream busy"
    assert row.run_after == now + timedelta(seconds=60)
    assert queue.claim_next(database, "w1", kinds=[kind], now=now + timedelta(seconds=59)) is None
    second = queue.claim_next(database, "w1", kinds=[kind], now=now + timedelta(seconds=61))
    assert second.attempts == 2
    assert queue.fail(database, second, RuntimeError("x")) == "dead"
    assert job_row(database, job_id).status == "dead"


def test_permanent_errors_and_unknown_kinds_go_straight_to_dead(database):
    kind = unique_kind("nohandler")
    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {}, max_attempts=5).id
    assert Worker(database, registry=HandlerRegistry(), kinds=[kind]).run_once()
    job = job_row(database, job_id)
    assert job.status == "dead" and job.attempts == 1
    assert "no handler registered" in job.last_error


def test_rolled_back_enqueue_leaves_no_job(database):
    kind = unique_kind("rollback")
    with pytest.raises(RuntimeError), database.transaction() as db:
        queue.enqueue(db, kind, {"id": 1})
        raise RuntimeError("the enqueuing work failed")
    with database.transaction() as db:
        queue.enqueue(db, kind, {"id": 2})
    with database.session() as db:
        payloads = [j.payload for j in db.scalars(select(Job).where(Job.kind == kind))]
    assert payloads == [{"id": 2}]


def test_two_concurrent_claimers_never_claim_the_same_job(database):
    kind = unique_kind("race")
    with database.transaction() as db:
        ids = {queue.enqueue(db, kind, {"i": i}).id for i in range(40)}
    claimed: dict[str, list[int]] = {"a": [], "b": []}
    barrier = threading.Barrier(2)

    def claimer(name: str) -> None:
        barrier.wait()
        while (job := queue.claim_next(database, name, kinds=[kind])) is not None:
            claimed[name].append(job.id)

    threads = [threading.Thread(target=claimer, args=(n,)) for n in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert set(claimed["a"]).isdisjoint(claimed["b"])
    assert sorted(claimed["a"] + claimed["b"]) == sorted(ids)
    with database.session() as db:
        owners = dict(db.execute(select(Job.id, Job.locked_by).where(Job.kind == kind)).all())
    assert all(owners[i] == "a" for i in claimed["a"]) and all(owners[i] == "b" for i in claimed["b"])


def test_skip_locked_lets_a_second_claimer_pass_a_locked_row(database):
    """While one transaction holds the oldest row, another claimer gets the next one (PostgreSQL)."""
    if database.is_sqlite:
        pytest.skip("SQLite serialises claims with BEGIN IMMEDIATE instead of row locks")
    kind = unique_kind("skiplocked")
    with database.transaction() as db:
        first = queue.enqueue(db, kind, {}, run_after=utcnow() - timedelta(seconds=10)).id
        second = queue.enqueue(db, kind, {}).id
    holder = database.session(write=True)
    try:
        locked = holder.scalars(select(Job).where(Job.id == first).with_for_update()).one()
        assert locked.id == first
        got = queue.claim_next(database, "other", kinds=[kind])
        assert got is not None and got.id == second
    finally:
        holder.rollback()
        holder.close()


def test_stale_running_jobs_are_requeued_and_the_old_worker_loses_its_lock(database):
    kind = unique_kind("stale")
    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {}, max_attempts=3).id
    claimed = queue.claim_next(database, "crashed-worker", kinds=[kind])
    queue.requeue_stale(database, older_than=timedelta(minutes=15))
    assert job_row(database, job_id).status == "running"  # a fresh lock is left alone
    later = utcnow() + timedelta(minutes=16)
    assert queue.requeue_stale(database, older_than=timedelta(minutes=15), now=later) >= 1
    row = job_row(database, job_id)
    assert row.status == "queued" and row.locked_by is None and row.last_error.startswith("WorkerLost")
    assert queue.complete(database, claimed, {"late": True}) is False
    assert job_row(database, job_id).status == "queued"


def test_enqueue_refuses_bad_payloads(database):
    with database.transaction() as db:
        with pytest.raises(TypeError):
            queue.enqueue(db, "k", ["not", "an", "object"])
        with pytest.raises(ValueError, match="not JSON-serialisable"):
            queue.enqueue(db, "k", {"when": object()})
        with pytest.raises(ValueError, match="limit"):
            queue.enqueue(db, "k", {"blob": "x" * 10_000})
        db.rollback()


def test_the_app_starts_and_stops_its_worker_with_its_lifespan(tmp_path):
    """With job_worker_enabled the app runs queued jobs while it is up (own database: the
    worker claims every kind, so it must not meet other tests' jobs)."""
    from fastapi.testclient import TestClient

    from api.app import build_services, create_app
    from api.core.settings import Settings
    from api.infra.db import migrate

    url = f"sqlite:///{tmp_path / 'worker.db'}"
    migrate.upgrade(url)
    kind = unique_kind("lifespan")
    register_handler(kind)(lambda ctx: {"ran": ctx.payload["x"]})
    services = build_services(
        Settings(data_dir=tmp_path, database_url=url, job_worker_enabled=True, job_poll_seconds=0.02)
    )
    try:
        with TestClient(create_app(services=services)):
            assert services.job_worker.running
            with services.database.transaction() as db:
                job_id = queue.enqueue(db, kind, {"x": 7}).id
            assert wait_for(services.database, job_id, {"succeeded", "dead"}).result == {"ran": 7}
        assert not services.job_worker.running
    finally:
        services.close()
