"""caseControl.*: bulk and supervisory control of denial cases. Every change is a CaseEvent."""

from __future__ import annotations

from api.denials.case_control import service
from api.denials.case_control.schemas import BulkAssignIn, BulkAssignItem, BulkAssignOut, ControlOut, ReasonIn
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("caseControl")


@router.mutation("bulkAssign")
def bulk_assign(ctx: Context, input: BulkAssignIn) -> BulkAssignOut:
    """Assign many cases to one owner (a member whose role may work cases), all or nothing: when any
    case is missing or closed nothing changes and the error's `items` report each id."""
    items = [
        BulkAssignItem.model_validate(i)
        for i in service.bulk_assign(ctx.db, input.ids, input.owner_user_id, user_id=ctx.user_id)
    ]
    changed = [i.id for i in items if i.status == "assigned"]
    if changed:
        ctx.services.case_assigned.emit(ctx.db, changed, input.owner_user_id, ctx.user_id)  # the owner is told
    ctx.note("case_bulk_assignment", input.owner_user_id, after={"owner": input.owner_user_id, "cases": changed})
    return BulkAssignOut(owner_user_id=input.owner_user_id, assigned=len(changed), items=items)


@router.mutation("escalate")
def escalate(ctx: Context, input: ReasonIn) -> ControlOut:
    """Escalate a case to a supervisor, with the reason; an escalated case is escalated once."""
    case = service.escalate(ctx.db, input.id, input.reason, user_id=ctx.user_id)
    ctx.note("case", case.id, before={"escalated": False}, after={"escalated": True})
    return ControlOut.model_validate(case)


@router.mutation("hold")
def hold(ctx: Context, input: ReasonIn) -> ControlOut:
    """Put a case on hold with the reason: its lifecycle cannot move until it is released."""
    case = service.hold(ctx.db, input.id, input.reason, user_id=ctx.user_id)
    ctx.note("case", case.id, before={"on_hold": False}, after={"on_hold": True})
    return ControlOut.model_validate(case)


@router.mutation("release")
def release(ctx: Context, input: ReasonIn) -> ControlOut:
    """Release a held case, with the reason; PRECONDITION_FAILED when it is not on hold."""
    case = service.release(ctx.db, input.id, input.reason, user_id=ctx.user_id)
    ctx.note("case", case.id, before={"on_hold": True}, after={"on_hold": False})
    return ControlOut.model_validate(case)
