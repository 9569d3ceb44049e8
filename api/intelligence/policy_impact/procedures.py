"""policyImpact.assess: what a payer policy change would do to the client's open cases and future claims,
computed by the engines that would apply it (deadlines, priorAuthorization); nothing is written."""

from __future__ import annotations

from datetime import date

from api.denials.deadlines.service import AppealMove
from api.infra.marts.inputs import month_text
from api.intelligence.policy_impact import impact, service
from api.intelligence.policy_impact.schemas import (
    MAX_CASES,
    MAX_LINES,
    AppealLimitChange,
    AssessIn,
    AssessOut,
    AuthorizationChange,
    FutureClaims,
    FutureMonth,
    MovedCase,
    OpenCases,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("policyImpact")


def _moved(m: AppealMove, as_of: date) -> MovedCase:
    return MovedCase(
        case_id=m.case_id,
        payer_id=m.payer_id,
        payer_type=m.payer_type,
        assumed=m.assumed,
        level=m.level,
        basis_date=m.basis_date,
        due_on=m.before,
        new_due_on=m.after,
        days_moved=None if m.before is None or m.after is None else (m.after - m.before).days,
        past_due=m.after is not None and m.after < as_of,
    )


def _open_cases(ctx: Context, change: AppealLimitChange, as_of: date) -> OpenCases:
    found = service.appeal_limit(
        ctx.db,
        payer_id=change.payer_id,
        payer_type=change.payer_type,
        days=change.days,
        effective_from=change.effective_from,
        max_cases=MAX_CASES,
    )
    items = [_moved(m, as_of) for m in found.moved]
    past_due = sum(1 for i in items if i.past_due)
    return OpenCases(checked=found.checked, moved=len(items), past_due=past_due, truncated=found.truncated, items=items)


def _future_claims(ctx: Context, change: AuthorizationChange, as_of: date) -> FutureClaims:
    found = service.authorization(
        ctx.db,
        payer_id=change.payer_id,
        procedure_codes=change.procedure_codes,
        months=change.months,
        as_of=as_of,
        max_lines=MAX_LINES,
    )
    months = [
        FutureMonth(
            month=month_text(m.month),
            claims=m.claims,
            lines=m.lines,
            charges=m.charges,
            lines_without_authorization=m.lines_without_authorization,
        )
        for m in found.months
    ]
    claims = [m.claims for m in found.months]
    return FutureClaims(
        procedure_codes=found.codes,
        from_month=months[0].month,
        to_month=months[-1].month,
        months=months,
        monthly_claims=round(sum(claims) / len(claims), 2),
        monthly_charges=impact.average([m.charges for m in found.months]),
        lines=found.lines,
        lines_without_authorization=sum(m.lines_without_authorization for m in found.months),
        truncated=found.truncated,
    )


@router.query("assess")
def assess(ctx: Context, input: AssessIn) -> AssessOut:
    """The effect of a proposed payer policy change, nothing written. `appeal_limit` (a payer id and/or a
    payer type, the new first-level appeal days, the effective date: denials noticed from it): each working
    case whose appeal deadline the deadline engine moves, old -> new due date, and whether it would already
    be past due as of `asOf` (at most 2,000 cases checked). `authorization` (a payer id, a CPT/HCPCS code or
    range, the effective date): the payer's claim lines of those codes over the last `months` (1..24) up to
    `asOf`: claims, lines, charges and lines no approved authorization covers today, per month, and the
    monthly averages (at most 20,000 lines read)."""
    as_of = input.as_of or service.today(ctx.db)
    change = input.change
    if isinstance(change, AppealLimitChange):
        return AssessOut(kind=change.kind, as_of=as_of, open_cases=_open_cases(ctx, change, as_of), future_claims=None)
    return AssessOut(kind=change.kind, as_of=as_of, open_cases=None, future_claims=_future_claims(ctx, change, as_of))
