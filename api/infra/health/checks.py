"""The health checks: database reachability and queue progress.

Queue rule: the queue check fails when the in-process worker is enabled and
the oldest due job has waited longer than `STUCK_AFTER` (15 minutes): jobs
are being enqueued but nobody runs them. When the worker is disabled here
(workers run elsewhere), depth and age are still reported but do not fail
this instance's health, which would otherwise take a healthy API out of a
load balancer for a problem it cannot fix.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import timedelta
from typing import Any, TypeVar, TypeVarTuple, Unpack

from sqlalchemy import text

from api.infra.db.session import Database
from api.infra.jobs.queue import QueueStats, queue_stats

STUCK_AFTER = timedelta(minutes=15)
CHECK_TIMEOUT_SECONDS = 3.0

# A check that hangs (a black-holed database host) must not hang the endpoint.
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="health")


T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def _bounded(fn: Callable[[Unpack[Ts]], T], *args: *Ts) -> T:
    return _pool.submit(fn, *args).result(timeout=CHECK_TIMEOUT_SECONDS)


def _select_one(database: Database) -> None:
    with database.engine.connect() as conn:
        if database.engine.dialect.name == "postgresql":
            # LOCAL: the setting ends with this transaction, not with the pooled connection.
            conn.execute(text("SET LOCAL statement_timeout = 2000"))
        conn.execute(text("SELECT 1")).scalar_one()


def _failure(exc: BaseException) -> dict[str, Any]:
    # The type only: driver messages can name hosts, users or credentials.
    reason = "timeout" if isinstance(exc, FutureTimeout) else type(exc).__name__
    return {"status": "fail", "error": reason}


def check_database(database: Database) -> dict[str, Any]:
    """`{"status": "ok", "latencyMs": n}` or `{"status": "fail", "error": "<exception type>"}`."""
    started = time.perf_counter()
    try:
        _bounded(_select_one, database)
    except Exception as exc:  # noqa: BLE001 - any failure is the answer
        return _failure(exc)
    return {"status": "ok", "latencyMs": round((time.perf_counter() - started) * 1000, 1)}


def _stats(database: Database) -> QueueStats:
    with database.session() as db:
        return queue_stats(db)


def check_queue(database: Database, *, worker_enabled: bool, stuck_after: timedelta = STUCK_AFTER) -> dict[str, Any]:
    """`{"status", "depth", "oldestAgeSeconds"}`; fail when the queue is unreadable or stuck."""
    try:
        stats = _bounded(_stats, database)
    except Exception as exc:  # noqa: BLE001
        return _failure(exc)
    age = None if stats.oldest_age_seconds is None else round(stats.oldest_age_seconds, 1)
    stuck = worker_enabled and age is not None and age > stuck_after.total_seconds()
    result: dict[str, Any] = {"status": "fail" if stuck else "ok", "depth": stats.depth, "oldestAgeSeconds": age}
    if stuck:
        result["error"] = "stuck"
    return result


def health(database: Database, *, worker_enabled: bool) -> tuple[dict[str, Any], int]:
    """The health document and its HTTP status (200 all ok, 503 any check failing)."""
    checks = {"database": check_database(database), "queue": check_queue(database, worker_enabled=worker_enabled)}
    ok = all(c["status"] == "ok" for c in checks.values())
    return {"status": "ok" if ok else "fail", "checks": checks}, 200 if ok else 503
