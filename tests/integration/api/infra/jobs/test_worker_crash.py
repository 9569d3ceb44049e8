"""A worker killed while it runs a job, a job that runs longer than the stale bound, and a job whose workers
are lost on every attempt.

Killed (SIGKILL, a real process): its job is given back as soon as another worker of the same machine
looks, not only once its lock has gone stale (15 minutes by default), and then runs to the end once.
Long: the running worker's heartbeat keeps the lock fresh, so no other worker takes the job while it runs.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete

from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs import queue
from api.infra.jobs.handlers import HandlerRegistry, JobContext
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker, machine_identity
from api.integrations.operations import service as operations
from api.integrations.operations.models import PipelineRun
from api.integrations.operations.service import JOB_KIND as OPERATIONS_JOB_KIND
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


def _dead_pid() -> int:
    """The pid of a process that has exited (a real one: nothing here is pretended)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    return int(done.stdout)


def test_a_job_whose_worker_is_lost_on_its_last_attempt_records_that_on_its_own_record(
    database, services, make_member, tmp_path
) -> None:
    member = make_member()
    scope = TenantScope(member.organization_id, member.client_id)
    with database.transaction() as db:
        set_scope(db, scope)
        run, _ = operations.request_run(
            db, user_id=member.user_id, organization_id=member.organization_id, data_dir=tmp_path, selection=None
        )
        run_id, job_id = run.id, run.job_id
    # Claimed twice by workers of this machine that died (its two attempts), as two kill -9 in a row would.
    lost = f"{machine_identity()}:{_dead_pid()}:lost"
    survivor = Worker(database, kinds=[OPERATIONS_JOB_KIND])
    for attempt in (1, 2):
        claimed = queue.claim_next(database, lost, kinds=[OPERATIONS_JOB_KIND])
        assert claimed is not None and claimed.id == job_id and claimed.attempts == attempt
        assert survivor.recover() == 1
    job = _job(database, job_id)
    assert (job.status, job.last_error) == ("dead", "WorkerLost: lock expired on the last attempt")
    with database.transaction(write=False) as db:
        set_scope(db, scope)
        failed = db.get(PipelineRun, run_id)
        assert failed is not None and failed.status == "failed" and failed.finished_at is not None
        assert failed.error is not None and "worker running it was lost" in failed.error
