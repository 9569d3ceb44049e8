"""revenuePayerIntelligence.*: the money a payer's denials put at risk, how much of it is likely to come back
(with its uncertainty), and whether it is growing. Read from fct_claim_payers (claim x payer: a COB
secondary's denial is the secondary's), by adjudication month (the payer's first decision of the claim)."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.revenue_payer_intelligence import queries, risk
from api.intelligence.revenue_payer_intelligence.schemas import AtRiskIn, AtRiskOut, TrendIn, TrendOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenuePayerIntelligence")


@router.query("atRisk")
def at_risk(ctx: Context, input: AtRiskIn) -> AtRiskOut:
    """Per payer, most at risk first: the claims it initially denied in the months, what its overturns paid
    back, the amount still at risk, its overturn rate with a 95% interval, and the expected recovery and
    loss with 95% intervals (which denials come back and the uncertainty of the rate); plus the total over
    every payer. The assumption behind the expectation is stated in the answer."""
    with open_marts(ctx, *queries.MARTS) as m:
        items, cursor, total = queries.at_risk(m, input, input.payer, input)
        snap = snapshot_of(m)
    return AtRiskOut(snapshot=snap, items=items, next_cursor=cursor, total=total)


@router.query("trend")
def trend(ctx: Context, input: TrendIn) -> TrendOut:
    """The amount at risk per adjudication month (every month of the range, default the 12 up to the latest,
    0 where there was no denial) for one payer or all, and its linear trend: the least-squares slope per
    month with a 95% interval and a plain statement (no slope below 3 months)."""
    with open_marts(ctx, *queries.MARTS) as m:
        months = queries.monthly(m, input, input.payer)
        snap = snapshot_of(m)
    found = risk.trend([month.at_risk_amount for month in months])
    return TrendOut(
        snapshot=snap,
        payer_key=input.payer,
        months=months,
        slope_per_month=found.slope_per_month,
        slope_low=found.slope_low,
        slope_high=found.slope_high,
        statement=found.statement,
    )
