"""analytics.*: HFMA-style revenue-cycle KPIs from the published marts (fct_kpis_monthly,
fct_claim_reconciliation). Months are adjudication months (the month of a claim's first remittance)."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.analytics import queries
from api.intelligence.analytics.schemas import BreakdownIn, BreakdownOut, KpisIn, KpisOut, TrendIn, TrendOut
from api.rpc.context import Context
from api.rpc.procedure import rpc


@rpc.query("analytics.kpis")
def kpis(ctx: Context, input: KpisIn) -> KpisOut:
    """Revenue-cycle KPIs summed over a range of adjudication months: initial denial rate by volume
    and by dollars, clean claim rate, denial write-off % of net revenue, overturn rate, days to pay.
    Every rate comes with its numerator and denominator."""
    with open_marts(ctx, *queries.KPI_MARTS) as m:
        months, values = queries.kpis(m, input)
        snap = snapshot_of(m)
    return KpisOut(snapshot=snap, from_month=input.from_month, to_month=input.to_month, months=months, kpis=values)


@rpc.query("analytics.trend")
def trend(ctx: Context, input: TrendIn) -> TrendOut:
    """One KPI month by month (fct_kpis_monthly); rates carry their numerator and denominator."""
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
