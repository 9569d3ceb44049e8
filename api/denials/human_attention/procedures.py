"""humanAttention.*: the prioritised worklist, the reasons for a case's rank, snoozing."""

from __future__ import annotations

from api.denials.human_attention import service
from api.denials.human_attention.schemas import CaseRef, QueueIn, QueueOut, SnoozeIn, SnoozeOut, WhyOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("humanAttention")


@router.query("queue")
def queue(ctx: Context, input: QueueIn) -> QueueOut:
    """The worklist, highest score first: amount still at stake x P(overturn) (the client's outcome model
    where its latest trained version beat the Beta-binomial prior on held-out outcomes, else the Beta-binomial
    from the client's recorded decisions by payer, category and CARC; `probabilitySource` says which) / the
    category's effort hours, discounted by exp(-days left /
    45) to the appeal deadline, days counted on the client's day (its time zone) (a 180-day window assumed when the case has none). Working cases only;
    cases on hold, snoozed or past their deadline are left out. For one specialist (`owner`: "me" or a
    user id), a team (`team`: user ids) or the whole client; filter by payer, category, state and
    minimum amount at stake; paginated."""
    owners = (ctx.user_id,) if input.owner == "me" else (input.owner,) if input.owner is not None else None
    filters = service.QueueFilters(
        owners=tuple(input.team) if input.team is not None else owners,
        payer=input.payer,
        category=input.category,
        state=input.state,
        min_amount=input.min_amount,
    )
    ask = ctx.services.success_probability
    page = service.queue(ctx.db, filters, limit=input.limit, cursor=input.cursor, ask=ask)
    return QueueOut.model_validate(
        {
            "items": [service.queue_item(r, page.today) for r in page.items],
            "next_cursor": page.next_cursor,
            "as_of": page.today,
        }
    )


@router.query("why")
def why(ctx: Context, input: CaseRef) -> WhyOut:
    """Why a case ranks where it does, in numbers and words: amount at stake, P(overturn) and which estimate
    gave it (`probabilitySource`: the outcome model's version, or the Beta-binomial prior), the Beta-binomial's 95 %
    credible interval and the data it came from (n decided, k overturned at each level: global,
    category, payer x category, payer x category x CARC), expected recovery, effort hours, deadline
    and days left, the deadline discount, the score and its position in the client's queue (or why the
    case is not in it). NOT_FOUND for a case outside the selected client."""
    explained = service.why(ctx.db, input.case_id, ask=ctx.services.success_probability)
    return WhyOut.model_validate(service.why_view(explained))


@router.mutation("snooze")
def snooze(ctx: Context, input: SnoozeIn) -> SnoozeOut:
    """Hide a working case from the queue until `until` (in the future, at most 90 days ahead) for a
    reason; the case's history gets a `snoozed` event with the reason and who. Snoozing again replaces
    the time. A decided or closed case is PRECONDITION_FAILED."""
    case, before = service.snooze(ctx.db, input.case_id, input.until, input.reason, user_id=ctx.user_id)
    ctx.note(
        "denial_case",
        case.id,
        before={"snoozed_until": before.isoformat() if before else None},
        after={"snoozed_until": case.snoozed_until.isoformat() if case.snoozed_until else None},
    )
    return SnoozeOut(case_id=case.id, snoozed_until=input.until, previous_snoozed_until=before)
