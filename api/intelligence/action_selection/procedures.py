"""actionSelection.*: choosing between recovery actions by expected value."""

from __future__ import annotations

from api.intelligence.action_selection import service
from api.intelligence.action_selection.schemas import CaseRef, ProbabilityOut, RankedActionOut, RankOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("actionSelection")


def item_out(item: service.RankedAction) -> RankedActionOut:
    v = item.valued
    return RankedActionOut(
        action_key=item.action.key,
        label=item.action.label,
        kind=item.action.kind,
        evidence=item.evidence,
        probability=ProbabilityOut(
            mean=v.probability.mean,
            low=v.probability.low,
            high=v.probability.high,
            sample_size=v.probability.sample_size,
        ),
        amount=v.amount,
        effort_hours=float(item.action.effort_hours),
        effort_cost=v.effort_cost,
        expected_value=v.expected_value,
        expected_value_low=v.expected_low,
        expected_value_high=v.expected_high,
        reasons=list(item.reasons),
    )


@router.query("rank")
def rank(ctx: Context, input: CaseRef) -> RankOut:
    """The active actions of the taxonomy that apply to the case's denial category, highest expected value
    first: EV = P(success) x amount at stake - effort hours x cost per hour. P(success) of an appeal,
    corrected claim or payer call is the worklist's Beta-binomial posterior of P(overturn) for the case's
    payer x category (with its 95% credible interval and the sample it rests on); other kinds say what they
    rest on. Each item gives its reasons in words. Another client's case is NOT_FOUND."""
    ranking = service.rank(ctx.db, input.case_id)
    return RankOut(
        case_id=ranking.case_id,
        payer=ranking.payer,
        category=ranking.category,
        amount_at_stake=ranking.amount_at_stake,
        items=[item_out(i) for i in ranking.items],
    )
