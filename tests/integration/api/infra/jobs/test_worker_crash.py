"""A worker killed while it runs a job, and a job that runs longer than the stale bound.

Killed (SIGKILL, a real process): its job is given back as soon as another worker of the same machine
looks, not only once its lock has gone stale (15 minutes by default), and then runs to the end once.
Long: the running worker's heartbeat keeps the lock fresh, so no other worker takes the job while it runs.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete

from api.infra.jobs import queue
from api.infra.jobs.handlers import HandlerRegistry, JobContext
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker, machine_identity
from tests.support.killed import kill_at_marker


@pytest.fixture
def database(services):
    yield services.database
    with services.database.transaction() as db:
        db.execute(delete(Job).where(Job.kind.like("test.%")))


def _job(database, job_id: int) -> Job:
    with database.session() as db:
        job = db.get(Job, job_id)
        assert job is not None
        return job


def _killed_while_running(database, kind: str, job_id: int, marker: Path) -> None:
    script = Path(__file__).with_name("crash_job_worker.py")
    kill_at_marker(script, database.url, kind, str(marker), marker=marker, what="the job")
    assert marker.read_text() == str(job_id)


def test_a_killed_workers_job_is_given_back_at_once_by_a_worker_of_the_same_machine(database, tmp_path) -> None:
    kind = f"test.crash.{uuid.uuid4().hex[:10]}"
    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {"n": 1}).id
    _killed_while_running(database, kind, job_id, tmp_path / "marker")

    stuck = _job(database, job_id)
    assert (stuck.status, stuck.attempts) == ("running", 1)
    assert stuck.locked_by is not None and stuck.locked_by.startswith(f"{machine_identity()}:")
    # The lock is seconds old: by staleness alone the job would wait out the 15 minutes.
    assert queue.requeue_stale(database, older_than=timedelta(minutes=15)) == 0

    registry = HandlerRegistry()
    registry.register(kind)(lambda ctx: {"finished": ctx.attempt})
    survivor = Worker(database, registry=registry, kinds=[kind])
    assert survivor.recover() == 1
    requeued = _job(database, job_id)
    assert (requeued.status, requeued.last_error) == ("queued", "WorkerLost: lock expired, requeued")
    assert survivor.run_once() is True
    done = _job(database, job_id)
    assert (done.status, done.attempts, done.result) == ("succeeded", 2, {"finished": 2})
    assert survivor.recover() == 0  # nothing else was orphaned


def test_a_live_workers_job_is_never_taken_while_its_heartbeat_keeps_the_lock_fresh(database) -> None:
    kind = f"test.long.{uuid.uuid4().hex[:10]}"
    with database.transaction() as db:
        job_id = queue.enqueue(db, kind, {}).id
    started, release = threading.Event(), threading.Event()
    registry = HandlerRegistry()

    @registry.register(kind)
    def long_job(ctx: JobContext) -> dict[str, int]:
        started.set()
        release.wait(60)
        return {"attempt": ctx.attempt}

    runner = Worker(database, registry=registry, kinds=[kind], heartbeat_seconds=0.05)
    thread = threading.Thread(target=runner.run_once)
    thread.start()
    try:
        assert started.wait(30)
        time.sleep(4.0)  # the job has now run longer than the stale bound below
        # Without the heartbeat its lock would be 4 s old and this would give it to another worker.
        assert queue.requeue_stale(database, older_than=timedelta(seconds=3)) == 0
        assert _job(database, job_id).status == "running"
    finally:
        release.set()
        thread.join(60)
    done = _job(database, job_id)
    assert (done.status, done.attempts, done.result) == ("succeeded", 1, {"attempt": 1})
