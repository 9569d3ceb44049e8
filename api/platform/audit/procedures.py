"""audit.*: reading and verifying the organization's tamper-evident audit log."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.core.errors import NotFound
from api.platform.audit import service
from api.platform.audit.anchor import AuditAnchor
from api.platform.audit.models import AuditEvent
from api.platform.audit.service import scope_for
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Output, Page, PageInput, Schema, paginate

router = rpc.namespace("audit")


class AuditEventOut(Output):
    id: int
    seq: int
    organization_id: int | None
    client_id: int | None
    actor_user_id: int | None
    actor_kind: str
    procedure: str
    target_type: str | None
    target_id: str | None
    input_digest: str
    before_digest: str | None
    after_digest: str | None
    created_at: datetime
    prev_hash: str
    hash: str


class AuditListIn(PageInput):
    procedure: str | None = None
    actor_user_id: int | None = None
    target_type: str | None = None
    target_id: str | None = None


class AuditRef(Schema):
    id: int


class VerifyOut(Output):
    scope: str
    events: int
    valid: bool
    first_broken_seq: int | None
    problem: str | None
    checkpoints: int = Field(description="Signed checkpoints (kept outside the database) the chain was held against")


@router.query("list", permission="audit")
def list_events(ctx: Context, input: AuditListIn) -> Page[AuditEventOut]:
    """The organization's audit events, newest first, filterable by procedure, actor and target (a
    membership reaching only some clients sees those clients' events)."""
    stmt = service.list_statement(
        ctx.org_id,
        ctx.tenant.reach,
        procedure=input.procedure,
        actor_user_id=input.actor_user_id,
        target_type=input.target_type,
        target_id=input.target_id,
    )
    return paginate(ctx.db, stmt, AuditEvent.id, input, AuditEventOut.model_validate)


@router.query("get", permission="audit")
def get_event(ctx: Context, input: AuditRef) -> AuditEventOut:
    """One audit event of the organization (of a client you reach)."""
    event = ctx.db.scalar(service.list_statement(ctx.org_id, ctx.tenant.reach).where(AuditEvent.id == input.id))
    if event is None:
        raise NotFound(f"Audit event {input.id} was not found in this organization")
    return AuditEventOut.model_validate(event)


@router.query("verifyChain", permission="audit")
def verify_chain(ctx: Context) -> VerifyOut:
    """Re-hash the organization's whole chain and hold it against its signed checkpoints (kept outside
    the database); any edited, removed or inserted event, or a chain rewritten and re-hashed, is reported.
    Organization-wide members only: the chain holds every client's events."""
    ctx.require_organization_wide("Verifying the audit chain")
    services = ctx.services
    anchor = AuditAnchor.of(services.settings, services.digest_key, services.signing_keys)
    report = anchor.verify(ctx.db, scope_for(ctx.org_id))
    return VerifyOut.model_validate(report)
