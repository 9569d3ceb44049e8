"""A polling worker thread: claim, run the registered handler, record the outcome."""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from datetime import timedelta
from typing import Any

from api.core.services import AuditSink, SuccessProbability
from api.core.settings import Settings
from api.infra.db.session import Database
from api.infra.jobs import queue
from api.infra.jobs.handlers import Handler, HandlerRegistry, JobContext, handlers
from api.infra.jobs.models import Job

log = logging.getLogger("api.infra.jobs")


def machine_identity() -> str:
    """This machine as worker ids name it: the host name and, where /proc tells, the PID namespace, so two
    containers sharing a host name never judge each other's processes."""
    try:
        namespace = f"+pidns{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        namespace = ""
    return f"{socket.gethostname()}{namespace}".replace(":", "_")


def parse_machine(worker_id: str) -> str | None:
    owner = queue.parse_worker_id(worker_id)
    return owner[0] if owner else None


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (signal 0 checks without signalling)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another account
    return True


class Worker:
    """Runs queued jobs in a background thread until `stop()`.

    One job at a time per worker; run several workers (threads or processes)
    for parallelism. While a job runs, a heartbeat refreshes its lock, so a
    job longer than `stale_after` is never run twice. Every few polls (and at
    once on start) it gives back the jobs of this machine's workers whose
    process is gone, and the jobs whose lock went stale (another machine's
    worker that died).
    """

    def __init__(
        self,
        database: Database,
        *,
        registry: HandlerRegistry = handlers,
        kinds: list[str] | None = None,
        worker_id: str | None = None,
        poll_seconds: float = 1.0,
        stale_after: timedelta = timedelta(minutes=15),
        heartbeat_seconds: float | None = None,
        retry_base_seconds: float = queue.DEFAULT_RETRY_BASE_SECONDS,
        audit: AuditSink | None = None,
        settings: Settings | None = None,
        success_probability: SuccessProbability | None = None,
    ) -> None:
        self.database = database
        self.audit, self.settings = audit, settings
        self.success_probability = success_probability
        self.registry = registry
        self.kinds = kinds
        self.worker_id = worker_id or f"{machine_identity()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.poll_seconds = poll_seconds
        self.stale_after = stale_after
        self.heartbeat_seconds = heartbeat_seconds or min(60.0, stale_after.total_seconds() / 5)
        self.retry_base_seconds = retry_base_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start polling in a daemon thread (idempotent)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name=f"job-worker-{self.worker_id}", daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """Stop claiming jobs; the job in hand finishes (`stop` waits for it)."""
        self._stop.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the thread to finish its current job and exit; wait up to `timeout` seconds."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    close = stop

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run_once(self) -> bool:
        """Claim and run one due job; False when nothing was due."""
        job = queue.claim_next(self.database, self.worker_id, kinds=self.kinds)
        if job is None:
            return False
        self._run(job)
        return True

    def _run(self, job: Job) -> None:
        handler = self.registry.get(job.kind)
        if handler is None:
            queue.fail(self.database, job, queue.PermanentJobError(f"no handler registered for kind {job.kind!r}"))
            log.error("job %s: no handler for kind %r", job.id, job.kind)
            return
        ctx = self._context(job)
        try:
            result = self._beating(job, handler, ctx)
        except Exception as exc:  # noqa: BLE001 - any handler failure is a failed attempt
            status = queue.fail(self.database, job, exc, retry_base_seconds=self.retry_base_seconds)
            log.warning(
                "job %s (%s) attempt %d failed: %s -> %s",
                job.id,
                job.kind,
                job.attempts,
                queue.describe_error(exc),
                status,
            )
            return
        if result is not None and not isinstance(result, dict):
            queue.fail(self.database, job, queue.PermanentJobError("handler returned a non-object result"))
            return
        if not queue.complete(self.database, job, result):
            log.warning("job %s (%s) finished after its lock was taken away; outcome dropped", job.id, job.kind)

    def _context(self, job: Job) -> JobContext:
        return JobContext(
            job_id=job.id,
            kind=job.kind,
            payload=dict(job.payload or {}),
            attempt=job.attempts,
            organization_id=job.organization_id,
            database=self.database,
            audit=self.audit,
            settings=self.settings,
            success_probability=self.success_probability,
        )

    def _beating(self, job: Job, handler: Handler, ctx: JobContext) -> Any:
        """Run the handler while a heartbeat thread keeps the job's lock fresh."""
        done = threading.Event()
        beat = threading.Thread(target=self._beat, args=(job, done), name=f"job-heartbeat-{job.id}", daemon=True)
        beat.start()
        try:
            return handler(ctx)
        finally:
            done.set()
            beat.join()

    def _beat(self, job: Job, done: threading.Event) -> None:
        """Refresh the running job's lock until `done`; a failed beat (the database away) is retried at
        the next one, and a lock taken away ends the beating."""
        while not done.wait(self.heartbeat_seconds):
            try:
                if not queue.heartbeat(self.database, job):
                    log.warning("job %s (%s): its lock was taken away while it ran", job.id, job.kind)
                    return
            except Exception as exc:  # noqa: BLE001 - the next beat tries again
                log.warning("job %s heartbeat failed: %s", job.id, type(exc).__name__)

    def recover(self) -> int:
        """Give back the jobs of this machine's dead workers and the jobs whose lock went stale; a job lost on
        its last attempt is dead, and its kind's abandoned callback records that on its own record."""
        machine = parse_machine(self.worker_id)
        abandoned: list[Job] = []
        given = queue.requeue_stale(self.database, older_than=self.stale_after, abandoned=abandoned)
        if machine:
            given += queue.requeue_orphaned(self.database, machine=machine, alive=process_alive, abandoned=abandoned)
        for job in abandoned:
            self._abandon(job)
        return given

    def _abandon(self, job: Job) -> None:
        callback = self.registry.abandoned(job.kind)
        if callback is None:
            return
        try:
            callback(self._context(job))
        except Exception as exc:  # noqa: BLE001 - one record that cannot be updated must not stop the worker
            log.error("job %s (%s): recording its abandonment failed: %s", job.id, job.kind, type(exc).__name__)

    def _loop(self) -> None:
        polls = 0
        while not self._stop.is_set():
            try:
                if polls % 30 == 0:
                    self.recover()
                polls += 1
                while not self._stop.is_set() and self.run_once():
                    pass
            except Exception as exc:  # noqa: BLE001 - a database outage must not kill the worker
                log.error("job worker %s poll failed: %s", self.worker_id, type(exc).__name__)
            self._stop.wait(self.poll_seconds)
