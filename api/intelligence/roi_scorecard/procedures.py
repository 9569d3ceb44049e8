"""roiScorecard.*: money recovered on denied claims against the cost of working them (fct_roi_monthly;
cost per denial from the cost_assumptions seed until real effort is recorded)."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.roi_scorecard import queries
from api.intelligence.roi_scorecard.schemas import RoiIn, ScorecardOut, TrendOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("roiScorecard")


@router.query("scorecard")
def scorecard(ctx: Context, input: RoiIn) -> ScorecardOut:
    """Denials worked, cost of the work, claims and money recovered, net benefit and ROI over the months."""
    with open_marts(ctx, *queries.ROI_MARTS) as m:
        totals = queries.totals(m, input)
        snap = snapshot_of(m)
    return ScorecardOut(snapshot=snap, from_month=input.from_month, to_month=input.to_month, totals=totals)


@router.query("trend")
def trend(ctx: Context, input: RoiIn) -> TrendOut:
    """The ROI figures month by month."""
    with open_marts(ctx, *queries.ROI_MARTS) as m:
        months = queries.monthly(m, input)
        snap = snapshot_of(m)
    return TrendOut(snapshot=snap, months=months)
