"""The queue's state machine: enqueue, claim, complete, fail, requeue stale.

    queued --claim--> running --complete--> succeeded
                         |--fail (attempts left)--> queued (run_after = now + backoff)
                         |--fail (no attempts left, or PermanentJobError)--> dead
                         '--lock older than the stale timeout--> queued (or dead when out of attempts)

Claiming is one short write transaction: on PostgreSQL `SELECT ... FOR UPDATE
SKIP LOCKED` lets concurrent workers pass over each other's rows; on SQLite
the session begins with `BEGIN IMMEDIATE` (see `api.infra.db.session`), so claims are
serialised by the database write lock. Completion and failure are guarded by
`locked_by`, so a worker whose lock was taken away (stale requeue) cannot
overwrite the outcome of the worker that owns the job now.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, Update, func, or_, select, update
from sqlalchemy.orm import Session

from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.infra.db.tenant_filter import get_scope
from api.infra.jobs.models import Job

MAX_PAYLOAD_BYTES = 8_192
DEFAULT_MAX_ATTEMPTS = 5
DEFAULT_RETRY_BASE_SECONDS = 5.0
MAX_RETRY_DELAY_SECONDS = 3_600.0


class JobError(Exception):
    """A failure whose message the platform wrote itself (no PHI): recorded as last_error."""


class PermanentJobError(JobError):
    """A failure that retrying cannot fix: the job goes straight to `dead`."""


def enqueue(
    db: Session,
    kind: str,
    payload: dict[str, Any],
    *,
    organization_id: int | None = None,
    run_after: datetime | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Job:
    """Add a job in the caller's transaction: it exists only if the caller commits.

    `payload` is a JSON object of ids and flags, never PHI; it is capped at 8 KiB
    so nobody is tempted to ship records through the queue.
    """
    if not kind or len(kind) > 100:
        raise ValueError("job kind must be 1-100 characters")
    if not isinstance(payload, dict):
        raise TypeError(f"job payload for kind {kind!r} must be a JSON object, got {type(payload).__name__}")
    try:
        size = len(json.dumps(payload, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"job payload for kind {kind!r} is not JSON-serialisable ({type(exc).__name__})") from None
    if size > MAX_PAYLOAD_BYTES:
        raise ValueError(f"job payload for kind {kind!r} is {size} bytes; the limit is {MAX_PAYLOAD_BYTES} (send ids)")
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    if run_after is not None and run_after.tzinfo is None:
        raise ValueError("run_after must be timezone-aware")
    job = Job(
        kind=kind,
        payload=payload,
        status="queued",
        attempts=0,
        max_attempts=max_attempts,
        run_after=run_after or utcnow(),
        organization_id=organization_id,
    )
    db.add(job)
    db.flush()
    return job


def enqueue_for_client(db: Session, kind: str, list_key: str, listed: Sequence[str] | None, *, max_listed: int) -> None:
    """Queue `kind` for the session's client over `listed` (None: all of the client's), coalesced with a
    job of that kind still queued for the client: the lists merge, and None, or a list past `max_listed`,
    widens it to all (the payload stays small; the run's result is the same). The payload is
    ``{"clientId": ..., list_key: [...] | None}``, read back by ``handlers.client_list_payload``."""
    scope = get_scope(db)
    if scope is None or scope.client_id is None:
        raise RuntimeError(f"{kind} needs a client scope")
    client_id = scope.client_id

    def bounded(values: set[str] | None) -> list[str] | None:
        return None if values is None or len(values) > max_listed else sorted(values)

    def merge(queued: dict[str, Any]) -> dict[str, Any]:
        known = queued.get(list_key)
        both = None if known is None or listed is None else {*known, *listed}
        return {**queued, list_key: bounded(both)}

    enqueue_coalesced(
        db,
        kind,
        {"clientId": client_id, list_key: bounded(None if listed is None else set(listed))},
        organization_id=scope.organization_id,
        same=lambda queued: queued.get("clientId") == client_id,
        merge=merge,
    )


def enqueue_coalesced(
    db: Session,
    kind: str,
    payload: dict[str, Any],
    *,
    organization_id: int,
    same: Callable[[dict[str, Any]], bool],
    merge: Callable[[dict[str, Any]], dict[str, Any]],
) -> Job:
    """Add a job in the caller's transaction unless one of `kind` for the same thing (`same(payload)`)
    is still queued: then that one absorbs this request (`merge(its payload)`, written only while it is
    still queued, so a worker that claimed it meanwhile makes this enqueue a new job). For work whose
    later run covers the earlier requests (a refit, a recomputation): N confirms queue one job.

    Two concurrent callers may both find none and queue two: each run is complete on its own, so the
    second is redundant, never wrong."""
    waiting = db.scalars(
        select(Job)
        .where(Job.kind == kind, Job.status == "queued", Job.organization_id == organization_id)
        .order_by(Job.id)
    )
    for job in waiting:
        if not same(dict(job.payload or {})):
            continue
        merged = merge(dict(job.payload or {}))
        if merged == job.payload:
            return job
        if len(json.dumps(merged, allow_nan=False)) > MAX_PAYLOAD_BYTES:
            break  # the merge outgrew the cap: a job of its own (enqueue checks the caller's payload)
        changed = _rowcount(
            db,
            update(Job)
            .where(Job.id == job.id, Job.status == "queued")
            .values(payload=merged)
            .execution_options(synchronize_session=False),
        )
        if changed == 1:
            db.refresh(job)
            return job
    return enqueue(db, kind, payload, organization_id=organization_id)


def backoff_seconds(
    attempt: int, base: float = DEFAULT_RETRY_BASE_SECONDS, cap: float = MAX_RETRY_DELAY_SECONDS
) -> float:
    """Delay before retry number `attempt` (1-based): base, 2*base, 4*base, ... capped."""
    if attempt < 1:
        raise ValueError("attempt is 1-based")
    doubling: int = 2 ** min(attempt - 1, 62)  # a non-negative exponent: an int
    return min(cap, base * doubling)


def claim_next(
    database: Database, worker_id: str, *, kinds: list[str] | tuple[str, ...] | None = None, now: datetime | None = None
) -> Job | None:
    """Take the oldest due queued job for `worker_id`, or None when nothing is due.

    The returned Job is detached (its transaction is committed): its status is
    `running`, `attempts` counts this attempt and `locked_by` is `worker_id`.
    """
    now = now or utcnow()
    with database.transaction(write=True) as db:
        stmt = select(Job).where(Job.status == "queued", Job.run_after <= now)
        if kinds is not None:
            stmt = stmt.where(Job.kind.in_(list(kinds)))
        # FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's compiler drops it (BEGIN IMMEDIATE serialises instead).
        stmt = stmt.order_by(Job.run_after, Job.id).limit(1).with_for_update(skip_locked=True)
        job = db.scalars(stmt).first()
        if job is None:
            return None
        job.status = "running"
        job.attempts += 1
        job.locked_by = worker_id
        job.locked_at = now
        db.flush()
        db.refresh(job)
        return job


def _owned(job: Job) -> tuple[ColumnElement[bool], ...]:
    return (Job.id == job.id, Job.status == "running", Job.locked_by == job.locked_by)


def _rowcount(db: Session, statement: Update) -> int:
    """How many rows a bulk UPDATE changed.

    `Session.execute` is typed as returning a plain `Result`; for DML it is a
    `CursorResult`, the type that carries `rowcount`.
    """
    return cast("CursorResult[Any]", db.execute(statement)).rowcount


def complete(
    database: Database, job: Job, result: dict[str, Any] | None = None, *, now: datetime | None = None
) -> bool:
    """Mark a claimed job succeeded; False when this worker no longer owns it."""
    with database.transaction(write=True) as db:
        done = _rowcount(
            db,
            update(Job)
            .where(*_owned(job))
            .values(
                status="succeeded",
                result=result,
                finished_at=now or utcnow(),
                last_error=None,
                locked_by=None,
                locked_at=None,
            )
            .execution_options(synchronize_session=False),
        )
        return done == 1


def describe_error(error: BaseException) -> str:
    """What `last_error` records: the type, plus the message only when the platform wrote it.

    Messages of arbitrary exceptions can quote data (a parser quoting a patient
    name), so only `JobError` messages are kept.
    """
    name = type(error).__name__
    if isinstance(error, JobError) and str(error):
        return f"{name}: {str(error)[:400]}"
    return name


def fail(
    database: Database,
    job: Job,
    error: BaseException,
    *,
    now: datetime | None = None,
    retry_base_seconds: float = DEFAULT_RETRY_BASE_SECONDS,
) -> str | None:
    """Record a failed attempt: requeue with exponential backoff, or `dead` when out of attempts.

    Returns the job's new status, or None when this worker no longer owns it.
    """
    now = now or utcnow()
    permanent = isinstance(error, PermanentJobError)
    out_of_attempts = job.attempts >= job.max_attempts
    values: dict[str, Any] = {"last_error": describe_error(error), "locked_by": None, "locked_at": None}
    if permanent or out_of_attempts:
        values.update(status="dead", finished_at=now)
    else:
        delay = backoff_seconds(job.attempts, retry_base_seconds)
        values.update(status="queued", run_after=now + timedelta(seconds=delay))
    with database.transaction(write=True) as db:
        changed = _rowcount(
            db, update(Job).where(*_owned(job)).values(**values).execution_options(synchronize_session=False)
        )
        return values["status"] if changed == 1 else None


def requeue_stale(
    database: Database, *, older_than: timedelta, now: datetime | None = None, abandoned: list[Job] | None = None
) -> int:
    """Give back jobs whose worker vanished (lock older than `older_than`); returns how many.

    A live worker refreshes its job's lock (`heartbeat`), so only a job whose worker stopped beating (its
    process killed, its host gone) gets here. A job that already used all its attempts goes to `dead`
    instead, so a job that crashes its worker every time cannot loop forever.
    """
    now = now or utcnow()
    return _give_back(database, (Job.status == "running", Job.locked_at < now - older_than), now, abandoned)


def heartbeat(database: Database, job: Job, *, now: datetime | None = None) -> bool:
    """Refresh the lock of a job this worker still owns, so a long job is never taken for a lost one;
    False when the lock was taken away meanwhile."""
    with database.transaction(write=True) as db:
        statement = update(Job).where(*_owned(job)).values(locked_at=now or utcnow())
        return _rowcount(db, statement.execution_options(synchronize_session=False)) == 1


def parse_worker_id(worker_id: str) -> tuple[str, int] | None:
    """(machine, pid) of a worker id `<machine>:<pid>:<random>` (`Worker`), or None for another form."""
    parts = worker_id.rsplit(":", 2)
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])


def requeue_orphaned(
    database: Database,
    *,
    machine: str,
    alive: Callable[[int], bool],
    now: datetime | None = None,
    abandoned: list[Job] | None = None,
) -> int:
    """Give back at once the running jobs of workers on this `machine` whose process is gone (killed,
    out of memory): waiting for their lock to go stale would leave the work undone that long. Only the
    machine's own processes can be checked; a pid reused by another process merely looks alive, and its
    job is then given back by `requeue_stale` as before."""
    now = now or utcnow()
    with database.transaction() as db:
        running = db.execute(select(Job.id, Job.locked_by).where(Job.status == "running")).all()
    orphans = [
        job_id
        for job_id, locked_by in running
        if (owner := parse_worker_id(locked_by or "")) is not None and owner[0] == machine and not alive(owner[1])
    ]
    if not orphans:
        return 0
    # Keyed on the owner too: a job re-claimed meanwhile by a live worker is left alone.
    owned = [(Job.id == job_id) & (Job.locked_by == locked_by) for job_id, locked_by in running if job_id in orphans]
    return _give_back(database, (Job.status == "running", or_(*owned)), now, abandoned)


def _give_back(
    database: Database, where: tuple[ColumnElement[bool], ...], now: datetime, abandoned: list[Job] | None
) -> int:
    """Requeue the jobs `where` selects, or mark them dead on their last attempt; the dead ones are added to
    `abandoned` (detached), for their kind's abandoned callback."""
    with database.transaction(write=True) as db:
        if abandoned is not None:
            last = select(Job).where(*where, Job.attempts >= Job.max_attempts).with_for_update()
            for job in db.scalars(last):
                db.expunge(job)
                abandoned.append(job)
        dead = _rowcount(
            db,
            update(Job)
            .where(*where, Job.attempts >= Job.max_attempts)
            .values(
                status="dead",
                finished_at=now,
                last_error="WorkerLost: lock expired on the last attempt",
                locked_by=None,
                locked_at=None,
            )
            .execution_options(synchronize_session=False),
        )
        requeued = _rowcount(
            db,
            update(Job)
            .where(*where)
            .values(
                status="queued",
                run_after=now,
                last_error="WorkerLost: lock expired, requeued",
                locked_by=None,
                locked_at=None,
            )
            .execution_options(synchronize_session=False),
        )
        return dead + requeued


@dataclass(frozen=True)
class QueueStats:
    depth: int  # queued jobs that are due now
    oldest_age_seconds: float | None  # how long the oldest due job has waited since it became due
    running: int


def queue_stats(db: Session, *, now: datetime | None = None, organization_id: int | None = None) -> QueueStats:
    """Depth and waiting time of the due queue: installation-wide for the health check, or one
    organization's jobs only (what a tenant may see of the queue)."""
    now = now or utcnow()
    scope = [] if organization_id is None else [Job.organization_id == organization_id]
    depth, oldest = db.execute(
        select(func.count(), func.min(Job.run_after)).where(Job.status == "queued", Job.run_after <= now, *scope)
    ).one()
    running = db.scalar(select(func.count()).select_from(Job).where(Job.status == "running", *scope))
    age = None
    if oldest is not None:
        # min() over a TypeDecorator column comes back raw on SQLite (a string or naive value).
        oldest = _as_utc(oldest)
        age = max(0.0, (now - oldest).total_seconds())
    return QueueStats(depth=int(depth), oldest_age_seconds=age, running=int(running or 0))


def _as_utc(value: Any) -> datetime:
    from datetime import UTC

    moment: datetime = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
