"""deadlines.*: appeal and timely-filing deadlines of denial cases (operational DB).

The dates come from the payer limits held as data (``rules.py``); ``service.schedule_case`` stores
them when a case is opened. An override replaces the date that counts, with a reason, and is audited.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from api.denials.deadlines import service
from api.denials.deadlines.facts import client_today
from api.denials.deadlines.models import CaseDeadline
from api.denials.deadlines.schemas import CaseRef, DeadlineOut, ForCaseOut, OverrideIn, UpcomingIn, UpcomingOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("deadlines")

_STORED = [name for name in DeadlineOut.model_fields if name not in {"status", "days_left"}]


def _deadline(row: CaseDeadline, as_of: date) -> dict[str, Any]:
    return {
        **{name: getattr(row, name) for name in _STORED},
        "status": service.effective_status(row, as_of),
        "days_left": (row.due_on - as_of).days,
    }


@router.query("forCase")
def for_case(ctx: Context, input: CaseRef) -> ForCaseOut:
    """The deadlines of one case (first appeal level, timely filing of a corrected claim), soonest first,
    each with its rule, basis date, override, status at `asOf` (default: today in the client's time
    zone) and why it applies (payer type, assumed for an unknown payer, source). Unknown case: NOT_FOUND."""
    as_of = input.as_of or client_today(ctx.db)
    case, rows = service.for_case(ctx.db, input.case_id)
    return ForCaseOut(
        case_id=case.id,
        state=case.state,
        payer_class=case.payer_class,
        appeal_due_on=case.appeal_due_on,
        assumed=any(r.assumed for r in rows),
        as_of=as_of,
        items=[DeadlineOut.model_validate(_deadline(r, as_of)) for r in rows],
    )


@router.query("upcoming")
def upcoming(ctx: Context, input: UpcomingIn) -> UpcomingOut:
    """Open deadlines of working cases (open, triaged, in_appeal, awaiting_payer) due within `withinDays`
    of `asOf`, soonest first; filters: owner, payer (name or id), kind, overdue included or not."""
    as_of = input.as_of or client_today(ctx.db)
    found, cursor = service.upcoming(
        ctx.db,
        service.UpcomingFilter(
            as_of=as_of,
            within_days=input.within_days,
            include_overdue=input.include_overdue,
            owner_user_id=input.owner_user_id,
            payer=input.payer,
            kind=input.kind,
            limit=input.limit,
            cursor=input.cursor,
        ),
    )
    items = [
        {
            **_deadline(row, as_of),
            "case_state": case.state,
            "owner_user_id": case.owner_user_id,
            "payer": case.payer,
            "payer_class": case.payer_class,
        }
        for row, case in found
    ]
    return UpcomingOut.model_validate({"items": items, "next_cursor": cursor, "as_of": as_of})


@router.mutation("override", permission="approve")
def override(ctx: Context, input: OverrideIn) -> DeadlineOut:
    """Replace the date of one deadline of a case (a contracted limit, an extension granted), with a
    reason (required). The new date may be earlier or later than the computed one but not before today
    (BAD_REQUEST); a met deadline cannot change (PRECONDITION_FAILED). Managers and admins only.
    The audit records the dates before and after, never the reason's text."""
    as_of = client_today(ctx.db)
    result = service.override(
        ctx.db, input.case_id, input.level, input.due_on, input.reason, user_id=ctx.user_id, as_of=as_of
    )
    ctx.note(
        "case_deadline",
        result.row.id,
        before={"due_on": result.before_due_on.isoformat(), "overridden": result.was_overridden},
        after={"due_on": result.row.due_on.isoformat(), "overridden": True, "level": result.row.level},
    )
    return DeadlineOut.model_validate(_deadline(result.row, as_of))
