"""knowledgeControl.*: versioned knowledge the agents may use, usable only after a second person approves."""

from __future__ import annotations

from api.automation.knowledge_control import service
from api.automation.knowledge_control.models import KnowledgeVersion
from api.automation.knowledge_control.schemas import KnowledgeVersionOut, ListKnowledgeIn, PublishIn, RetireIn
from api.core.errors import InvalidInput
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("knowledgeControl")


def _out(ctx: Context, row: KnowledgeVersion) -> KnowledgeVersionOut:
    return KnowledgeVersionOut.model_validate(service.view(row, service.active_versions(ctx.db)))


def _publish_or_approve(ctx: Context, input: PublishIn) -> KnowledgeVersion:
    if input.approve_version_id is not None:
        given = [f for f in ("kind", "key", "content", "note") if getattr(input, f) is not None]
        if given:
            raise InvalidInput(f"Invalid input: approving takes 'approveVersionId' and 'reason' only, not {given}")
        if input.reason is None:
            raise InvalidInput("Invalid input: 'reason' is required to approve a knowledge version")
        return service.approve(
            ctx.db,
            input.approve_version_id,
            reason=input.reason,
            user_id=ctx.user_id,
            invited_window_days=ctx.services.settings.sod_invited_window_days,
        )
    if input.kind is None or input.key is None or input.content is None:
        raise InvalidInput("Invalid input: publishing needs 'kind', 'key' and 'content' (or 'approveVersionId')")
    if input.reason is not None:
        raise InvalidInput("Invalid input: 'reason' is for approving; say why you publish in 'note'")
    return service.publish(
        ctx.db, service.NewVersion(input.kind, input.key, input.content, input.note), user_id=ctx.user_id
    )


@router.mutation("publish", permission="approve")
def publish(ctx: Context, input: PublishIn) -> KnowledgeVersionOut:
    """Publish a new version of a knowledge item (`kind`, `key`, `content`, optional `note`): it is
    numbered after the last, immutable, stored with its SHA-256 and author, and starts
    pending_approval: agents do not use it. Approve a pending version with `approveVersionId` and a
    `reason` (nothing else): FORBIDDEN for its author and for someone the author invited within
    SOD_INVITED_WINDOW_DAYS (separation of duties), PRECONDITION_FAILED unless
    pending. The highest approved version of an item is active (the one agents use; one per item);
    lower approved ones are superseded. An appeal_template's unknown or malformed placeholder is
    BAD_REQUEST. Admins and managers only."""
    row = _publish_or_approve(ctx, input)
    ctx.note("knowledge_version", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.mutation("retire", permission="approve")
def retire(ctx: Context, input: RetireIn) -> KnowledgeVersionOut:
    """Retire a version (pending or approved), with a reason: it is never used again, and agents fall
    back to the previous approved version of the item, or to none (their built-in behaviour). A retired
    version is final (PRECONDITION_FAILED). Admins and managers only."""
    row = service.retire(ctx.db, input.id, reason=input.reason, user_id=ctx.user_id)
    ctx.note("knowledge_version", row.id, after=service.audit_view(row))
    return _out(ctx, row)


@router.query("list")
def list_versions(ctx: Context, input: ListKnowledgeIn) -> Page[KnowledgeVersionOut]:
    """The client's knowledge versions, newest first, each with its content, SHA-256, state (pending_approval,
    active, superseded, retired) and who published, approved and retired it and when; filter by kind,
    key and state."""
    active = service.active_versions(ctx.db)
    stmt = service.list_statement(input.kind, input.key, input.state)
    return paginate(
        ctx.db, stmt, KnowledgeVersion.id, input, lambda r: KnowledgeVersionOut.model_validate(service.view(r, active))
    )
