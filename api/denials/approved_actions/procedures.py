"""approvedActions.*: actions on a denial case that run only after approval, and only once."""

from __future__ import annotations

from api.denials.approved_actions import service
from api.denials.approved_actions.models import ApprovedAction
from api.denials.approved_actions.schemas import (
    ActionOut,
    ActionRef,
    ActionSummaryOut,
    DecideActionIn,
    ExecuteIn,
    ListActionsIn,
    RequestActionIn,
)
from api.infra.db.base import utcnow
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("approvedActions")


def _out(ctx: Context, action: ApprovedAction) -> ActionOut:
    return ActionOut.model_validate(service.detail(ctx.db, action, utcnow()))


@router.mutation("request")
def request(ctx: Context, input: RequestActionIn) -> ActionOut:
    """Request an action (submit_appeal_packet, send_corrected_claim, portal_message) on a case that is
    not closed, carrying a payload of that case by reference ('draft:<id>' for a draft, the packet id
    for an appeal packet). The payload's SHA-256 and its case's amount at stake are recorded and its
    approval is opened (one approver, two distinct ones above the client's policy threshold; never
    the requester, nor whoever wrote or assembled the payload). A payload of another case is
    BAD_REQUEST naming both; a kind whose payloads nobody can check yet is PRECONDITION_FAILED naming
    the kind; a payload missing here is NOT_FOUND; an id in payloadRef outside 1..2^63-1 is BAD_REQUEST."""
    action = service.request(
        ctx.db,
        ctx.services.payload_checkers,
        case_id=input.case_id,
        kind=input.kind,
        payload_ref=input.payload_ref,
        note=input.note,
        user_id=ctx.user_id,
    )
    ctx.note("approved_action", action.id, after=service.audit_view(action))
    return _out(ctx, action)


@router.mutation("decide", permission="approve")
def decide(ctx: Context, input: DecideActionIn) -> ActionOut:
    """Approve or reject an action's approval with a reason (required), under the rules of
    approvals.decide: never by its requester nor by whoever wrote or assembled its payload (FORBIDDEN,
    saying which), nor by someone either invited within SOD_INVITED_WINDOW_DAYS (FORBIDDEN, saying so),
    two distinct approvers above the policy threshold, PRECONDITION_FAILED unless pending."""
    action = service.decide(
        ctx.db,
        ctx.services.payload_checkers,
        input.id,
        decision=input.decision,
        reason=input.reason,
        user_id=ctx.user_id,
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    ctx.note("approved_action", action.id, after={**service.audit_view(action), "decision": input.decision})
    return _out(ctx, action)


@router.mutation("executeSandbox")
def execute_sandbox(ctx: Context, input: ExecuteIn) -> ActionOut:
    """Run an approved action once against the sandbox target (a recorded fake clearinghouse / payer
    portal inside the platform): it gets the payload's SHA-256, never its content, and answers with a
    tracking number derived from it ('sandbox-reject' refuses). The action becomes executed or failed;
    a second run is PRECONDITION_FAILED. Its approval must be valid now; if the payload's digest is no
    longer the approved one, or the payload is not of the action's case, the action is made void
    (recorded) and the call is PRECONDITION_FAILED "changed after approval" (or naming both cases).
    PRECONDITION_FAILED while operationalControl pauses the client or `execute_action`: nothing runs
    and the action stays approved, to run after resume."""
    try:
        action, execution = service.execute_sandbox(
            ctx.db,
            ctx.services.payload_checkers,
            ctx.services.require_not_paused,
            input.id,
            target=input.target,
            user_id=ctx.user_id,
        )
    except service.PayloadChanged:
        ctx.db.rollback()  # release this call's locks; the void is recorded in its own transaction
        service.void_after_change(ctx.services, ctx.tenant, ctx.principal, ctx.procedure, input, input.id)
        raise
    ctx.services.action_executed.emit(ctx.db, action.id)  # e.g. the appeal packet follows its submission
    ctx.note("approved_action", action.id, after=service.audit_view(action, execution))
    return _out(ctx, action)


@router.query("get")
def get(ctx: Context, input: ActionRef) -> ActionOut:
    """One action with its approval (decisions, validity) and its execution, if it ran."""
    return _out(ctx, service.get(ctx.db, input.id))


@router.query("list")
def list_actions(ctx: Context, input: ListActionsIn) -> Page[ActionSummaryOut]:
    """Actions of the selected client, newest first; filter by case, kind and stored state."""
    stmt = service.list_statement(input.case_id, input.kind, input.state)
    page = paginate(ctx.db, stmt, ApprovedAction.id, input, lambda row: row)
    items = [ActionSummaryOut.model_validate(view) for view in service.views(ctx.db, page.items, utcnow())]
    return Page[ActionSummaryOut](items=items, next_cursor=page.next_cursor)
