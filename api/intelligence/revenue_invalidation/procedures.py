"""revenueInvalidation.*: revenue that turned out not to be collectable, and why. Two sources, each amount
once (reasons.py): the final denial write-offs of the published marts (queries.py) and the denial cases
decided lost or written off in the operational database (service.py)."""

from __future__ import annotations

import calendar

from api.infra.marts.inputs import decode_offset, encode_offset, month_start
from api.infra.marts.serving import open_marts, snapshot_of
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.revenue_invalidation import queries, reasons, service
from api.intelligence.revenue_invalidation.schemas import (
    InvalidationFilter,
    InvalidationOut,
    ListIn,
    ListOut,
    MonthTally,
    PayerTally,
    ReasonTally,
    SummaryOut,
    Tally,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueInvalidation")


def _items(ctx: Context, m: ScopedMarts, given: InvalidationFilter) -> list[reasons.Item]:
    first = month_start(given.from_month) if given.from_month else None
    last = None
    if given.to_month:
        end = month_start(given.to_month)
        last = end.replace(day=calendar.monthrange(end.year, end.month)[1])
    remittance = queries.write_offs(m, first=first, last=last, payer=given.payer)
    cases = service.case_items(ctx.db, first=first, last=last, payer=given.payer)
    merged = reasons.merge(remittance, cases, queries.written_off_claims(m, [c.claim_key for c in cases]))
    return [i for i in merged if given.reason is None or i.reason == given.reason]


def _out(item: reasons.Item) -> InvalidationOut:
    return InvalidationOut.model_validate(vars(item))


@router.query("list")
def list_invalidations(ctx: Context, input: ListIn) -> ListOut:
    """Each amount of revenue that turned out not to be collectable, newest first: claim, payer, amount, when,
    the reason (appeal_window_closed, appeal_lost, timely_filing_missed, non_covered, written_off) and its source
    (remittance: the marts' final denial write-off; case: a case decided lost or written off), each amount once
    (a claim both know counts by the remittance rule). Filters: months of the day, payer, reason. Paged."""
    with open_marts(ctx, *queries.MARTS) as m:
        items = _items(ctx, m, input)
        snap = snapshot_of(m)
    offset = decode_offset(input.cursor)
    page = items[offset : offset + input.limit]
    cursor = encode_offset(offset + input.limit) if len(items) > offset + input.limit else None
    return ListOut(snapshot=snap, items=[_out(i) for i in page], next_cursor=cursor)


@router.query("summary")
def summary(ctx: Context, input: InvalidationFilter) -> SummaryOut:
    """The same items (same filters) totalled: count and amount overall, by reason (every reason, 0 where
    none), by payer (most first) and by month of the day (oldest first). The snapshot names the marts' half."""
    with open_marts(ctx, *queries.MARTS) as m:
        found = reasons.summarize(_items(ctx, m, input))
        snap = snapshot_of(m)
    zero = reasons.Tally()
    return SummaryOut(
        snapshot=snap,
        total=Tally(items=found.total.items, amount=found.total.amount),
        by_reason=[
            ReasonTally(reason=r, items=found.by_reason.get(r, zero).items, amount=found.by_reason.get(r, zero).amount)
            for r in reasons.REASONS
        ],
        by_payer=[
            PayerTally(payer_key=p, items=t.items, amount=t.amount)
            for p, t in sorted(found.by_payer.items(), key=lambda kv: (-kv[1].amount, kv[0]))
        ],
        by_month=[MonthTally(month=k, items=t.items, amount=t.amount) for k, t in sorted(found.by_month.items())],
    )
