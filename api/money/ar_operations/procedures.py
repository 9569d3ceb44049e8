"""arOperations.*: open accounts receivable from fct_claim_reconciliation, aged and queued for follow-up.

A claim is open when it awaits its remittance (open amount = billed) or was initially denied in whole
or in part and not overturned (open amount = the denied amount). Age counts from the statement end date.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from api.core.errors import InvalidInput, NotFound, PreconditionFailed
from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import open_marts, snapshot_of
from api.money.ar_operations.models import FollowUpAssignment
from api.money.ar_operations.schemas import (
    BUCKETS,
    AgingIn,
    AgingOut,
    AssignFollowUpIn,
    AssignmentOut,
    FollowUpQueueIn,
    FollowUpQueueOut,
)
from api.platform.organizations.models import Membership
from api.rpc.context import Context
from api.rpc.procedure import rpc

_OPEN_SQL = """
    select claim_key, payer_key, statement_to, primary_denial_category as denial_category,
           claim_outcome as reason,
           case when claim_outcome = 'awaiting_remittance' then billed_amount else initial_denied_amount end as open_amount,
           greatest(0, date_diff('day', statement_to, $as_of)) as age_days
    from fct_claim_reconciliation
    where (claim_outcome = 'awaiting_remittance' or (initially_denied and not overturned))
      and statement_to is not null and statement_to <= $as_of"""
_BUCKET_SQL = """case when age_days <= 30 then '0-30' when age_days <= 60 then '31-60'
                      when age_days <= 90 then '61-90' when age_days <= 120 then '91-120' else '120+' end"""


def _open(input, m) -> tuple[str, dict, date]:
    as_of = input.as_of or m.built_at.date()
    sql, params = f"select *, {_BUCKET_SQL} as bucket from ({_OPEN_SQL})", {"as_of": as_of}
    clauses = []
    if input.payer:
        clauses.append("upper(payer_key) = $payer")
        params["payer"] = input.payer
    if getattr(input, "bucket", None):
        clauses.append("bucket = $bucket")
        params["bucket"] = input.bucket
    if clauses:
        sql = f"select * from ({sql}) where " + " and ".join(clauses)
    return sql, params, as_of


@rpc.query("arOperations.aging")
def aging(ctx: Context, input: AgingIn) -> AgingOut:
    """Open A/R in age buckets (0-30, 31-60, 61-90, 91-120, 120+ days since the statement end) at a date."""
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        sql, params, as_of = _open(input, m)
        rows = {
            r["bucket"]: r
            for r in m.rows(
                f"select bucket, count(*) as claims, sum(open_amount) as open_amount from ({sql}) group by bucket",
                params,
            )
        }
        snap = snapshot_of(m)
    buckets = [
        {
            "bucket": b,
            "claims": int(rows[b]["claims"]) if b in rows else 0,
            "open_amount": rows[b]["open_amount"] if b in rows else 0,
        }
        for b in BUCKETS
    ]
    return AgingOut(
        snapshot=snap,
        as_of=as_of,
        open_claims=sum(b["claims"] for b in buckets),
        open_amount=sum((r["open_amount"] for r in rows.values()), 0),
        buckets=buckets,
    )


@rpc.query("arOperations.followUpQueue")
def follow_up_queue(ctx: Context, input: FollowUpQueueIn) -> FollowUpQueueOut:
    """Open claims to work, largest open amount first then oldest, with their current assignment;
    filter by payer, age bucket, assigned or not; paginated."""
    assignments = {a.claim_key: a for a in ctx.db.scalars(select(FollowUpAssignment))}
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        sql, params, as_of = _open(input, m)
        if input.assigned is not None:
            params["assigned_keys"] = list(assignments) or [""]
            negate = "" if input.assigned else "not "
            sql = f"select * from ({sql}) where {negate}list_contains($assigned_keys, claim_key)"
        rows, cursor = page_rows(m, f"{sql} order by open_amount desc, age_days desc, claim_key", params, input)
        snap = snapshot_of(m)
    items = []
    for r in rows:
        a = assignments.get(r["claim_key"])
        items.append(
            {**r, "assignee_user_id": a.assignee_user_id if a else None, "due_date": a.due_date if a else None}
        )
    return FollowUpQueueOut(snapshot=snap, as_of=as_of, items=items, next_cursor=cursor)


@rpc.mutation("arOperations.assignFollowUp")
def assign_follow_up(ctx: Context, input: AssignFollowUpIn) -> AssignmentOut:
    """Assign an open claim to a member of the organization (reassigning replaces the previous
    assignment). The claim must be open in the current snapshot."""
    if ctx.db.scalar(select(Membership.id).where(Membership.user_id == input.assignee_user_id)) is None:
        raise InvalidInput("Invalid input: 'assigneeUserId' is not a member of this organization")
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        row = m.one(
            """select claim_key from fct_claim_reconciliation where claim_key = $c
                       and (claim_outcome = 'awaiting_remittance' or (initially_denied and not overturned))""",
            {"c": input.claim_key},
        )
        exists = row or m.one(
            "select claim_key from fct_claim_reconciliation where claim_key = $c", {"c": input.claim_key}
        )
    if exists is None:
        raise NotFound("Claim was not found in this client's current snapshot")
    if row is None:
        raise PreconditionFailed("This claim has no open balance to follow up (paid or overturned)")
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
