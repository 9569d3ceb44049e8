"""deadlineRisk.*: working denial cases ranked by how likely they are to miss their deadline.

Slack = business days left until the case's next appeal deadline - business days of work its state
still needs (``risk.py``: open needs triage, evidence, draft, approval and submission; in_appeal
approval and submission; awaiting_payer nothing).
"""

from __future__ import annotations

from api.denials.deadline_risk import service
from api.denials.deadline_risk.schemas import AtRiskIn, AtRiskItem, AtRiskOut, SummaryIn, SummaryOut
from api.denials.deadlines.facts import client_today
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("deadlineRisk")


def _item(r: service.Ranked) -> AtRiskItem:
    c = r.case
    return AtRiskItem(
        case_id=c.id,
        state=c.state,
        payer=c.payer,
        payer_class=c.payer_class,
        owner_user_id=c.owner_user_id,
        due_on=c.appeal_due_on,
        business_days_left=r.risk.business_days_left,
        work_days_needed=r.risk.work_days_needed,
        slack=r.risk.slack,
        band=r.risk.band,
    )


@router.query("atRisk")
def at_risk(ctx: Context, input: AtRiskIn) -> AtRiskOut:
    """Working cases (open, triaged, in_appeal, awaiting_payer) ranked by slack, least first (then the
    soonest deadline); cases without a deadline only with `includeNoDeadline`, after the others."""
    as_of = input.as_of or client_today(ctx.db)
    found = service.ranked(ctx.db, as_of, owner_user_id=input.owner_user_id, payer=input.payer)
    if not input.include_no_deadline:
        found = [r for r in found if r.risk.slack is not None]
    items, cursor = service.page(found, input.limit, input.cursor)
    return AtRiskOut(items=[_item(r) for r in items], next_cursor=cursor, as_of=as_of)


@router.query("summary")
def summary(ctx: Context, input: SummaryIn) -> SummaryOut:
    """Working cases counted by deadline horizon (overdue, due within 7 days, within 30, later, none)
    and by risk band (missed, critical, high, medium, low, no deadline) at `asOf`."""
    as_of = input.as_of or client_today(ctx.db)
    found = service.summary(service.ranked(ctx.db, as_of, owner_user_id=input.owner_user_id, payer=input.payer), as_of)
    return SummaryOut.model_validate(
        {"as_of": as_of, "working_cases": found.total, "by_horizon": found.by_horizon, "by_band": found.by_band}
    )
