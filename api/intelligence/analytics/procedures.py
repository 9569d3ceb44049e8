"""analytics.*: revenue-cycle KPIs after HFMA's MAP Keys from the published marts (fct_kpis_monthly,
fct_claim_reconciliation). Cohort figures count a claim in its adjudication month (the month of its
first remittance); balances (A/R, DNFB) are taken at a month's last day. Definitions, numerators and
denominators: dbt_project/models/marts/_analytics.yml."""

from __future__ import annotations

from sqlalchemy import func, select

from api.infra.marts.inputs import month_start
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.analytics import queries
from api.intelligence.analytics.models import CollectionCost
from api.intelligence.analytics.schemas import (
    BreakdownIn,
    BreakdownOut,
    CollectionCostOut,
    KpisIn,
    KpisOut,
    RecordCollectionCostIn,
    TrendIn,
    TrendOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("analytics")


@router.query("kpis")
def kpis(ctx: Context, input: KpisIn) -> KpisOut:
    """Revenue-cycle KPIs after HFMA's MAP Keys over a range of months, each with its numerator and
    denominator and null when the denominator is 0: initial denial rate by volume and by charges,
    first-pass yield, final denial write-off % of net patient service revenue, overturn rate (appeals
    won from the same payer; `immatureMonths` counts the months too young to judge), net collection
    rate, cost to collect, and at the end of the range days in A/R, aged A/R over 90 days % and days
    in DNFB. `cleanClaimRate` is null, with the reason in `cleanClaimRateUnavailable`: HFMA's clean
    claim rate needs acknowledgement data (999 / 277CA) that are not ingested yet. Denial cases: opened,
    closed, decided (won / partially won / lost / written off, by month of decision), the case win rate,
    the money cases recovered and wrote off; the final denial write-off includes the write-offs of cases
    decided lost or written off (`caseFinalWriteOffAmount`, a claim the remittance rule already writes
    off counted once)."""
    with open_marts(ctx, *queries.KPI_MARTS) as m:
        months, data_as_of, values = queries.kpis(m, input)
        snap = snapshot_of(m)
    return KpisOut(
        snapshot=snap,
        from_month=input.from_month,
        to_month=input.to_month,
        months=months,
        data_as_of=data_as_of,
        kpis=values,
    )


@router.query("trend")
def trend(ctx: Context, input: TrendIn) -> TrendOut:
    """One KPI month by month (fct_kpis_monthly); rates carry their numerator and denominator (null
    when the denominator is 0) and whether the month is mature for overturns."""
    with open_marts(ctx, *queries.TREND_MARTS) as m:
        points = queries.trend(m, input, input.metric)
        snap = snapshot_of(m)
    return TrendOut(snapshot=snap, metric=input.metric, points=points)


@router.query("breakdown")
def breakdown(ctx: Context, input: BreakdownIn) -> BreakdownOut:
    """Initially denied claims broken down by root-cause category, CARC (group-code), payer, group
    code, hard/soft, preventability or claim type, largest first (claims, then dollars)."""
    with open_marts(ctx, *queries.BREAKDOWN_MARTS) as m:
        claims, amount, rows = queries.breakdown(m, input, input.by, input.limit)
        snap = snapshot_of(m)
    return BreakdownOut(snapshot=snap, by=input.by, total_denied_claims=claims, total_denied_amount=amount, rows=rows)


@router.mutation("recordCollectionCost", permission="approve")
def record_collection_cost(ctx: Context, input: RecordCollectionCostIn) -> CollectionCostOut:
    """Record a revenue-cycle cost of a month for this client (a manager's or an admin's figure: staff,
    vendors, clearinghouse, systems; a negative amount corrects an earlier record), audited. It is the
    numerator of HFMA's MAP Key "Cost to Collect" (fct_kpis_monthly.cost_to_collect_amount, over the
    month's cash collected) from the next pipeline run; a month without any recorded cost has no cost to
    collect (null), never an estimate."""
    month = month_start(input.month)
    cost = CollectionCost(
        month=month, amount=input.amount, category=input.category, note=input.note, recorded_by=ctx.user_id
    )
    ctx.db.add(cost)
    ctx.db.flush()
    total = ctx.db.scalar(select(func.sum(CollectionCost.amount)).where(CollectionCost.month == month)) or cost.amount
    ctx.note(
        "collection_cost",
        cost.id,
        after={"month": input.month, "amount": str(input.amount), "category": input.category, "note": input.note},
    )
    return CollectionCostOut(
        id=cost.id,
        month=input.month,
        amount=cost.amount,
        category=cost.category,
        note=cost.note,
        recorded_by=cost.recorded_by,
        month_total=total,
    )
