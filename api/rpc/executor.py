"""Running one procedure call: auth, tenancy, validation, handler, audit, commit.

The order is the security contract: the caller and the tenant are resolved and
checked before the input is even looked at, and every mutation commits
together with its audit record or not at all. The resolvers and the audit sink
come from `Services` (wired by `api.app`), so this layer imports no domain.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from api.core.errors import DomainError, Forbidden
from api.core.services import AuditRecord
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.services.container import Services
from api.rpc.context import Context, PublicContext, UserContext
from api.rpc.errors import RpcError, database_unavailable, error_envelope, storage_full, to_rpc_error
from api.rpc.procedure import Procedure
from api.rpc.schema import Prevalidated
from api.rpc.validation import validate_input

log = logging.getLogger("api.rpc")

UNDEFINED: Any = object()  # tRPC "no input" (distinct from JSON null)

Envelope = dict[str, Any]


@dataclass(frozen=True)
class CallMeta:
    authorization: str | None
    client_id_header: str | None
    client_ip: str | None


def run_public_async_ready(proc: Procedure) -> bool:
    return proc.is_async and proc.auth == "public"


async def execute_async(services: Services, proc: Procedure, raw_input: Any, meta: CallMeta) -> tuple[Envelope, int]:
    """Fast path for public async procedures that need neither auth nor database."""
    try:
        value = validate_input(proc, raw_input, UNDEFINED)
        # No session: the registry allows async handlers only for public procedures, which touch no database.
        ctx = PublicContext(db=None, procedure=proc.name, services=services, client_ip=meta.client_ip)  # type: ignore[arg-type]
        result = await (proc.handler(ctx, value) if proc.input_model else proc.handler(ctx))
        return {"result": {"data": serialize(proc, result)}}, 200
    except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
        return _failure(proc.name, exc)


def build_context(services: Services, proc: Procedure, db: Session, meta: CallMeta) -> PublicContext:
    """The context of the procedure's auth level: caller and tenant resolved and checked first."""
    base: dict[str, Any] = {"db": db, "procedure": proc.name, "services": services, "client_ip": meta.client_ip}
    if proc.auth == "public":
        return PublicContext(**base)
    principal = services.resolve_principal(db, meta.authorization)
    if principal.method == "api_key" and not proc.api_keys:
        raise Forbidden(f"API keys cannot call {proc.name}; sign in as a person for it")
    if principal.method == "smart" and not proc.smart_scopes:
        raise Forbidden(f"SMART access tokens cannot call {proc.name}; they read FHIR resources only")
    if proc.auth == "platform_admin" and not principal.is_platform_admin:
        raise Forbidden("This procedure is for platform administrators")
    if proc.auth != "tenant":
        return UserContext(**base, principal=principal)
    assert proc.permission is not None  # the registry gives every tenant procedure a permission
    tenant = services.resolve_tenant(db, principal, meta.client_id_header, proc.permission)
    set_scope(db, TenantScope(tenant.organization_id, tenant.client_id))
    return Context(**base, principal=principal, tenant=tenant)


def execute(services: Services, proc: Procedure, raw_input: Any, meta: CallMeta) -> tuple[Envelope, int]:
    """Run a call in its own transaction; returns (envelope, http status)."""
    started = time.perf_counter()
    value: Any = UNDEFINED
    prepared: Any = UNDEFINED
    if proc.prepare is not None:
        try:
            value, prepared = _prepare(services, proc, raw_input, meta)
        except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
            return _failure(proc.name, exc)
    db = services.database.session(write=proc.kind == "mutation")
    try:
        # Resolved again in the call's own session: a membership revoked during prepare is refused here.
        ctx = build_context(services, proc, db, meta)
        if proc.prepare is None:
            value = validate_input(proc, raw_input, UNDEFINED)
            result = proc.handler(ctx, value) if proc.input_model else proc.handler(ctx)
        else:
            result = proc.handler(ctx, value, prepared=prepared)
        data = serialize(proc, result)
        if proc.kind == "mutation":
            _audit(ctx, proc, value)
            db.commit()
        else:
            db.rollback()
        log.info("rpc %s ok %.1fms", proc.name, (time.perf_counter() - started) * 1000)
        return {"result": {"data": data}}, 200
    except Exception as exc:  # noqa: BLE001 - every failure becomes an envelope
        db.rollback()
        return _failure(proc.name, exc)
    finally:
        db.close()


def _prepare(services: Services, proc: Procedure, raw_input: Any, meta: CallMeta) -> tuple[Any, Any]:
    """A procedure's heavy step, before its transaction: (validated input, prepared value).

    Parsing, extraction, redaction, diffing and rendering take seconds on hostile input. Run inside a
    mutation they would hold SQLite's write lock (BEGIN IMMEDIATE) and so every tenant's writes. Here
    they run in a read session: the caller and tenant are resolved and the input validated first, as
    for any call, and nothing the step does is committed or audited.
    """
    assert proc.prepare is not None
    db = services.database.session(write=False)
    try:
        ctx = build_context(services, proc, db, meta)
        value = validate_input(proc, raw_input, UNDEFINED)
        return value, proc.prepare(ctx, value)
    finally:
        db.rollback()
        db.close()


class OutputContractError(Exception):
    """A handler's result broke its own output model: a server bug, never the caller's fault."""


def serialize(proc: Procedure, result: Any) -> Any:
    """Validate the handler's result against the output contract, then dump it for the wire.

    A `Prevalidated` result was validated and encoded when it was built: its bytes go into the envelope
    as they are (an `orjson.Fragment`, which the router's encoder copies verbatim), provided it was
    built for this procedure's output model."""
    if isinstance(result, Prevalidated):
        if result.output_type is not proc.output_type:
            raise OutputContractError(f"{proc.name} returned a precomputed answer of another output model")
        return orjson.Fragment(result.json)
    adapter = proc.output_adapter
    try:
        valid = adapter.validate_python(result, from_attributes=True)
    except ValidationError:
        # Not re-raised as ValidationError: that would be answered as the caller's BAD_REQUEST (tRPC
        # answers "Output validation failed" as INTERNAL_SERVER_ERROR), and its text may hold data.
        raise OutputContractError(f"{proc.name} returned data that does not match its output model") from None
    return adapter.dump_python(valid, mode="json", by_alias=True)


def _audit(ctx: PublicContext, proc: Procedure, value: Any) -> None:
    note = ctx.audit
    tenant = ctx.tenant if isinstance(ctx, Context) else None
    principal = ctx.principal if isinstance(ctx, UserContext) else None
    set_scope(ctx.db, None)
    ctx.services.audit(
        ctx.db,
        AuditRecord(
            organization_id=tenant.organization_id if tenant else note.organization_id,
            client_id=tenant.client_id if tenant else None,
            actor_user_id=principal.user_id if principal else note.actor_user_id,
            actor_kind=principal.method if principal else ("login" if note.actor_user_id else "anonymous"),
            procedure=proc.name,
            input_value=value,
            target_type=note.target_type,
            target_id=note.target_id,
            before=note.before,
            after=note.after,
        ),
    )


def _failure(path: str, exc: Exception) -> tuple[Envelope, int]:
    if isinstance(exc, RpcError):
        err = exc
    elif isinstance(exc, DomainError):
        err = to_rpc_error(exc)
    elif isinstance(exc, IntegrityError):
        err = RpcError("CONFLICT", "This change conflicts with an existing record (a duplicate or a missing reference)")
    elif isinstance(exc, OperationalError) and "locked" in str(exc.orig).lower():
        err = RpcError("TOO_MANY_REQUESTS", "The database is busy; retry shortly", retry_after=1)
    elif (full := storage_full(exc)) is not None:
        log.warning("rpc %s: storage full (%s); nothing was saved", path, type(exc).__name__)
        err = full
    elif (gone := database_unavailable(exc)) is not None:
        log.warning("rpc %s: the database is unreachable (%s)", path, type(exc).__name__)
        err = gone
    else:
        ref = uuid.uuid4().hex[:12]
        # Only the exception type and code locations are logged: messages can carry PHI.
        frames = "".join(traceback.format_list(traceback.extract_tb(exc.__traceback__)))
        log.error("rpc %s failed: %s (ref %s)\n%s", path, type(exc).__name__, ref, frames)
        err = RpcError("INTERNAL_SERVER_ERROR", f"Internal error (reference {ref}); the team has been notified")
    return error_envelope(err, path), err.http_status
