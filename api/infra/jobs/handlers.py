"""Which function runs which kind of job: `@register_handler("kind")`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from api.core.services import AuditSink, SuccessProbability
from api.core.settings import Settings
from api.infra.db.session import Database
from api.infra.db.tenant_filter import TenantScope
from api.infra.jobs.queue import PermanentJobError


@dataclass(frozen=True)
class JobContext:
    """What a handler gets: the job's identity and payload, and the database to open its own transactions."""

    job_id: int
    kind: str
    payload: dict[str, Any]
    attempt: int
    organization_id: int | None
    database: Database
    # The API's audit sink and settings, for handlers whose work must be audited or reads DATA_DIR
    # (None under a worker built without them, e.g. in a test that runs one kind of job).
    audit: AuditSink | None = None
    settings: Settings | None = None
    # The outcome model's P(success) port (``Services.success_probability``), for the worklist's rescoring
    # (None under a worker built without it: the worklist then ranks by its Beta-binomial estimate).
    success_probability: SuccessProbability | None = None


Handler = Callable[[JobContext], "dict[str, Any] | None"]
Abandoned = Callable[[JobContext], None]


def client_list_payload(ctx: JobContext, list_key: str) -> tuple[TenantScope, list[str] | None]:
    """The payload of a job that works on one client's cases: `clientId` and an optional list under
    `list_key` (null: all of them), scoped to the job's organization. A malformed payload, or a job with
    no organization, is a PermanentJobError naming the kind: retrying it cannot help."""
    try:
        client_id = int(ctx.payload["clientId"])
        listed = ctx.payload.get(list_key)
        values = None if listed is None else [str(v) for v in listed]
    except (KeyError, TypeError, ValueError):
        raise PermanentJobError(f"{ctx.kind}: payload needs 'clientId' and '{list_key}' (a list or null)") from None
    if ctx.organization_id is None:
        raise PermanentJobError(f"{ctx.kind}: the job has no organization")
    return TenantScope(ctx.organization_id, client_id), values


class HandlerRegistry:
    """Job kind -> handler. A kind is registered once; a second registration is a bug."""

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}
        self._abandoned: dict[str, Abandoned] = {}

    def register(self, kind: str) -> Callable[[Handler], Handler]:
        def decorate(fn: Handler) -> Handler:
            if kind in self._handlers and self._handlers[kind] is not fn:
                raise ValueError(f"a handler for job kind {kind!r} is already registered")
            self._handlers[kind] = fn
            return fn

        return decorate

    def get(self, kind: str) -> Handler | None:
        return self._handlers.get(kind)

    def register_abandoned(self, kind: str) -> Callable[[Abandoned], Abandoned]:
        """`fn(ctx)` is called once a job of `kind` is given up because its worker was lost on its last
        attempt (killed, out of memory): the job never ran to an end, so its own record must say so."""

        def decorate(fn: Abandoned) -> Abandoned:
            self._abandoned[kind] = fn
            return fn

        return decorate

    def abandoned(self, kind: str) -> Abandoned | None:
        return self._abandoned.get(kind)

    def kinds(self) -> list[str]:
        return sorted(self._handlers)


handlers = HandlerRegistry()


def register_handler(kind: str) -> Callable[[Handler], Handler]:
    """Decorator: `fn(ctx: JobContext) -> dict | None` runs jobs of `kind`; its return is the job result."""
    return handlers.register(kind)


def register_abandoned(kind: str) -> Callable[[Abandoned], Abandoned]:
    """Decorator: `fn(ctx: JobContext)` records that a job of `kind` was abandoned (`HandlerRegistry`)."""
    return handlers.register_abandoned(kind)
