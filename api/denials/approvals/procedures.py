"""approvals.*: human approval of drafts and actions, with separation of duties."""

from __future__ import annotations

from api.denials.approvals import service
from api.denials.approvals.models import ApprovalRequest
from api.denials.approvals.schemas import (
    ApprovalOut,
    ApprovalRef,
    ApprovalSummaryOut,
    DecideIn,
    ListApprovalsIn,
    PolicyOut,
    RequestApprovalIn,
    SetPolicyIn,
    WithdrawIn,
)
from api.infra.db.base import utcnow
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("approvals")


def _out(ctx: Context, approval: ApprovalRequest) -> ApprovalOut:
    return ApprovalOut.model_validate(service.detail(ctx.db, approval, utcnow()))


@router.mutation("request")
def request(ctx: Context, input: RequestApprovalIn) -> ApprovalOut:
    """Ask for approval of a draft's current version. The draft must be editing; it becomes in_approval
    and cannot be edited until the approval is rejected, withdrawn or lapses. The approval is bound to
    the version's SHA-256, needs one approver (two distinct ones when the case's amount at stake is
    above the client's policy threshold) and expires after the policy's hours. Neither the requester
    nor any author of the draft may decide it."""
    approval = service.request_for_draft(ctx.db, input.subject_id, note=input.note, user_id=ctx.user_id)
    ctx.note("approval", approval.id, after=service.audit_view(approval))
    return _out(ctx, approval)


@router.mutation("decide", permission="approve")
def decide(ctx: Context, input: DecideIn) -> ApprovalOut:
    """Approve or reject a pending approval, with a reason (required). FORBIDDEN for the requester or an
    author of the subject, for someone either invited within SOD_INVITED_WINDOW_DAYS (separation of
    duties, saying so) and for a second decision by the same approver;
    PRECONDITION_FAILED when it is not pending (decided, withdrawn, expired, or void because the
    subject changed). A rejection is final; an approval approves once enough distinct approvers have."""
    approval = service.decide(
        ctx.db,
        input.id,
        decision=input.decision,
        reason=input.reason,
        user_id=ctx.user_id,
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    ctx.note("approval", approval.id, after={**service.audit_view(approval), "decision": input.decision})
    return _out(ctx, approval)


@router.mutation("withdraw")
def withdraw(ctx: Context, input: WithdrawIn) -> ApprovalOut:
    """The requester (or an author of the subject) withdraws a pending or approved approval, with a
    reason: an approved draft becomes editable again, an action can no longer run. An approval used by
    an executed action cannot be withdrawn."""
    approval = service.withdraw(ctx.db, input.id, reason=input.reason, user_id=ctx.user_id)
    ctx.note("approval", approval.id, after=service.audit_view(approval))
    return _out(ctx, approval)


@router.query("get")
def get(ctx: Context, input: ApprovalRef) -> ApprovalOut:
    """One approval with its decisions and reasons, its state as of now (expiry and a changed or
    discarded subject apply at read) and whether it is valid."""
    return _out(ctx, service.get(ctx.db, input.id))


@router.query("list")
def list_approvals(ctx: Context, input: ListApprovalsIn) -> Page[ApprovalSummaryOut]:
    """Approvals of the selected client, newest first; filter by subject, case and state (as of now)."""
    now = utcnow()
    stmt = service.list_statement(input.subject_type, input.subject_id, input.case_id, input.state, now)
    page = paginate(ctx.db, stmt, ApprovalRequest.id, input, lambda row: row)
    items = [ApprovalSummaryOut.model_validate(view) for view in service.views(ctx.db, page.items, now)]
    return Page[ApprovalSummaryOut](items=items, next_cursor=page.next_cursor)


@router.mutation("setPolicy", permission="manage")
def set_policy(ctx: Context, input: SetPolicyIn) -> PolicyOut:
    """Set the client's approval policy: the amount above which two distinct approvers are needed
    (null: one always) and how many hours a request stays valid. Open requests need the stricter of
    the policy they were made under and this one."""
    row = service.set_policy(
        ctx.db,
        two_approvers_above=input.two_approvers_above,
        expires_after_hours=input.expires_after_hours,
        user_id=ctx.user_id,
    )
    ctx.note("approval_policy", row.id, after=service.policy_view(row))
    return PolicyOut.model_validate(service.policy_view(row))


@router.query("policy")
def policy(ctx: Context) -> PolicyOut:
    """The client's approval policy (the default, one approver and 72 hours, until one is set)."""
    return PolicyOut.model_validate(service.policy_view(service.policy(ctx.db)))
