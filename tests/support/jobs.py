"""Run queued jobs in a test, the way the API's worker does (`Worker.run_once`), one kind at a time.

Tests share a database per module, so what they assert is filtered to their own client (`clientId` in
the payload)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select

from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker


def _payloads(services: Any, kind: str, client_id: int, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
    with services.database.transaction(write=False) as db:
        rows = db.scalars(select(Job.payload).where(Job.kind == kind, Job.status.in_(statuses)).order_by(Job.id))
        return [dict(p) for p in rows if p and p.get("clientId") == client_id]


def queued(services: Any, kind: str, client_id: int) -> list[dict[str, Any]]:
    """The payloads of the client's queued jobs of `kind`, oldest first."""
    return _payloads(services, kind, client_id, ("queued",))


def run_queued(services: Any, kind: str, client_id: int) -> int:
    """Run every due job of `kind` (any client's) until none is left; returns how many of the client's
    ran. One of the client's that failed is an assertion error."""
    done = ("succeeded",)
    before = len(_payloads(services, kind, client_id, done))
    # with the API's settings, like its worker: a handler may read DATA_DIR (the installation's digest key)
    worker = Worker(
        services.database, kinds=[kind], worker_id=f"test-{kind}-{uuid.uuid4().hex[:6]}", settings=services.settings
    )
    while worker.run_once():
        pass
    failed = _payloads(services, kind, client_id, ("dead", "queued"))
    assert not failed, f"{kind} job(s) of client {client_id} failed: {failed}"
    return len(_payloads(services, kind, client_id, done)) - before
