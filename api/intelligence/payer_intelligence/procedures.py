"""payerIntelligence.*: denial and payment behaviour per payer of each claim's COB chain (fct_payer_monthly,
fct_payer_denials_monthly, fct_claim_payers, dim_payers: claim x payer, so a secondary payer is a payer of its
own). Months are adjudication months (the payer's first decision of the claim)."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.payer_intelligence import queries
from api.intelligence.payer_intelligence.schemas import (
    CompareIn,
    CompareOut,
    DenialReasonsIn,
    DenialReasonsOut,
    ScorecardIn,
    ScorecardOut,
    TimeToPayIn,
    TimeToPayOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("payerIntelligence")


@router.query("scorecard")
def scorecard(ctx: Context, input: ScorecardIn) -> ScorecardOut:
    """Per payer: volume, billed and paid, initial denial rate (volume and dollars), first-pass
    yield, mean days to pay, overturn rate and recovered money; largest billed first, paginated."""
    with open_marts(ctx, *queries.SCORE_MARTS) as m:
        items, cursor = queries.scorecard(m, input, input)
        snap = snapshot_of(m)
    return ScorecardOut(snapshot=snap, items=items, next_cursor=cursor)


@router.query("denialReasons")
def denial_reasons(ctx: Context, input: DenialReasonsIn) -> DenialReasonsOut:
    """Denials by payer, root-cause category and CARC over the range, with the denial rate against the
    payer's volume and the overturn rate of those denials; most frequent first, paginated. A denial is
    the payer's that made it: a claim paid by its primary and denied by its secondary counts under the
    secondary."""
    with open_marts(ctx, *queries.DENIAL_MARTS) as m:
        items, cursor = queries.denial_reasons(m, input, input.payer, input)
        snap = snapshot_of(m)
    return DenialReasonsOut(snapshot=snap, items=items, next_cursor=cursor)


@router.query("timeToPay")
def time_to_pay(ctx: Context, input: TimeToPayIn) -> TimeToPayOut:
    """Days from the payer's receipt of a claim (or the statement end) to its first payment, per payer:
    mean, median, 90th percentile and range, slowest payer first, and how far each payer is from the
    mean over all payers. Each payer of a claim counts (a COB secondary payer too)."""
    with open_marts(ctx, *queries.PAYER_CLAIM_MARTS) as m:
        mean_all, payers = queries.time_to_pay(m, input, input.payer)
        snap = snapshot_of(m)
    return TimeToPayOut(snapshot=snap, all_payers_mean_days=mean_all, payers=payers)


@router.query("compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """Side-by-side scorecards of 2 to 10 payers over the same months (in the order requested);
    payers without claims in the range are listed in `missing`."""
    with open_marts(ctx, *queries.SCORE_MARTS) as m:
        found = queries.compare(m, input, input.payers)
        snap = snapshot_of(m)
    return CompareOut(
        snapshot=snap,
        payers=[found[p] for p in input.payers if p in found],
        missing=[p for p in input.payers if p not in found],
    )
