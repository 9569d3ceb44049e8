"""arOperations.*: open accounts receivable from fct_claim_reconciliation, aged and queued for follow-up.

A claim is open at a date when it had been billed and awaited its first remittance (open amount = billed)
or had been initially denied in whole or in part and not yet overturned (open amount = the denied amount),
unless that denial had been finally written off by then (fct_claim_reconciliation.write_off_date, the marts'
final denial write-off, HFMA MAP Key "Final Denials Write-off": no longer receivable, as in
fct_kpis_monthly's A/R).
The state is rebuilt at `asOf` (default: the snapshot build date) from the claim's dates: only remittances
paid on or before `asOf` count. Age counts from the statement end date.
"""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import InvalidInput, NotFound, PreconditionFailed
from api.infra.marts.serving import open_marts, snapshot_of
from api.money.ar_operations import queries
from api.money.ar_operations.models import FollowUpAssignment
from api.money.ar_operations.schemas import (
    AgingIn,
    AgingOut,
    AssignFollowUpIn,
    AssignmentOut,
    FollowUpQueueIn,
    FollowUpQueueOut,
)
from api.platform.organizations import service as organizations
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("arOperations")


@router.query("aging")
def aging(ctx: Context, input: AgingIn) -> AgingOut:
    """Open A/R in age buckets (0-30, 31-60, 61-90, 91-120, 120+ days since the statement end) as it stood
    at `asOf`: only remittances paid on or before that date count, so a claim paid later was open then.
    A denial finally written off on or before `asOf` (its appeal window closed, the marts' final denial
    write-off) is no longer receivable and is left out of every bucket.
    Each bucket and the total count the claims that have a denial case not closed (as it is now)."""
    case_keys = ctx.services.open_case_claim_keys(ctx.db)
    with open_marts(ctx, *queries.AR_MARTS) as m:
        found = queries.aging(m, input, case_keys)
        snap = snapshot_of(m)
    return AgingOut(
        snapshot=snap,
        as_of=found.as_of,
        open_claims=found.open_claims,
        open_amount=found.open_amount,
        open_claims_with_case=found.open_claims_with_case,
        buckets=found.buckets,
    )


@router.query("followUpQueue")
def follow_up_queue(ctx: Context, input: FollowUpQueueIn) -> FollowUpQueueOut:
    """Open claims to work, largest open amount first then oldest, with their current assignment and
    their open denial case (`caseId`, `caseState`, `caseOwnerUserId`: a case not closed, one still worked
    if any, as it is now; null without one); filter by payer, age bucket, assigned or not; paginated."""
    assignments = {a.claim_key: a for a in ctx.db.scalars(select(FollowUpAssignment))}
    with open_marts(ctx, *queries.AR_MARTS) as m:
        as_of, items, cursor = queries.follow_up_queue(m, input, assignments)
        snap = snapshot_of(m)
    # A claim's open case is the cases' rule (its denial case not closed: being worked, else the latest
    # decided one), asked through the services' port, so money never reads denials' tables.
    found = ctx.services.open_cases_of_claims(ctx.db, (i.claim_key for i in items))
    items = [
        item.model_copy(update={"case_id": case.id, "case_state": case.state, "case_owner_user_id": case.owner_user_id})
        if (case := found.get(item.claim_key)) is not None
        else item
        for item in items
    ]
    return FollowUpQueueOut(snapshot=snap, as_of=as_of, items=items, next_cursor=cursor)


@router.mutation("assignFollowUp")
def assign_follow_up(ctx: Context, input: AssignFollowUpIn) -> AssignmentOut:
    """Assign an open claim to a member of the organization whose membership reaches this client
    (reassigning replaces the previous assignment). The claim must be open in the current snapshot."""
    if organizations.role_reaching(ctx.db, input.assignee_user_id, ctx.client_id) is None:
        raise InvalidInput("Invalid input: 'assigneeUserId' is not a member of this organization reaching this client")
    with open_marts(ctx, *queries.AR_MARTS) as m:
        state = queries.claim_state(m, input.claim_key)
    if state == "missing":
        raise NotFound("Claim was not found in this client's current snapshot")
    if state == "closed":
        raise PreconditionFailed("This claim has no open balance to follow up (paid, overturned or written off)")
    current = ctx.db.scalar(select(FollowUpAssignment).where(FollowUpAssignment.claim_key == input.claim_key))
    before = None
    if current is None:
        current = FollowUpAssignment(
            claim_key=input.claim_key,
            assignee_user_id=input.assignee_user_id,
            due_date=input.due_date,
            note=input.note,
            assigned_by=ctx.user_id,
        )
        ctx.db.add(current)
    else:
        before = {"assignee_user_id": current.assignee_user_id, "due_date": str(current.due_date)}
        current.assignee_user_id, current.due_date = input.assignee_user_id, input.due_date
        current.note, current.assigned_by = input.note, ctx.user_id
    ctx.db.flush()
    ctx.note(
        "follow_up_assignment",
        current.id,
        before=before,
        after={
            "claim_key": input.claim_key,
            "assignee_user_id": input.assignee_user_id,
            "due_date": str(input.due_date),
        },
    )
    return AssignmentOut.model_validate(
        {**AssignmentOut.model_validate(current).model_dump(), "reassigned": before is not None}
    )
