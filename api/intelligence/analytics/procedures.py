"""analytics.*: revenue-cycle KPIs after HFMA's MAP Keys from the published marts (fct_kpis_monthly,
fct_claim_reconciliation). Cohort figures count a claim in its adjudication month (the month of its
first remittance); balances (A/R, DNFB) are taken at a month's last day. Definitions, numerators and
denominators: dbt_project/models/marts/_analytics.yml."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.analytics import queries
from api.intelligence.analytics.schemas import BreakdownIn, BreakdownOut, KpisIn, KpisOut, TrendIn, TrendOut
from api.rpc.context import Context
from api.rpc.procedure import rpc


@rpc.query("analytics.kpis")
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


@rpc.query("analytics.trend")
def trend(ctx: Context, input: TrendIn) -> TrendOut:
    """One KPI month by month (fct_kpis_monthly); rates carry their numerator and denominator (null
    when the denominator is 0) and whether the month is mature for overturns."""
    with open_marts(ctx, *queries.TREND_MARTS) as m:
        points = queries.trend(m, input, input.metric)
        snap = snapshot_of(m)
    return TrendOut(snapshot=snap, metric=input.metric, points=points)


@rpc.query("analytics.breakdown")
def breakdown(ctx: Context, input: BreakdownIn) -> BreakdownOut:
    """Initially denied claims broken down by root-cause category, CARC (group-code), payer, group
    code, hard/soft, preventability or claim type, largest first (claims, then dollars)."""
    with open_marts(ctx, *queries.BREAKDOWN_MARTS) as m:
        claims, amount, rows = queries.breakdown(m, input, input.by, input.limit)
        snap = snapshot_of(m)
    return BreakdownOut(snapshot=snap, by=input.by, total_denied_claims=claims, total_denied_amount=amount, rows=rows)
