"""actionDecisionSupport.*: the recommended next action for a case."""

from __future__ import annotations

from api.intelligence.action_decision_support import service
from api.intelligence.action_decision_support.schemas import CaseRef, RecommendOut
from api.intelligence.action_selection.procedures import item_out
from api.intelligence.recovery_strategy.schemas import StrategyOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("actionDecisionSupport")


@router.query("recommend")
def recommend(ctx: Context, input: CaseRef) -> RecommendOut:
    """The next action for the case: the strategy a manager set for its payer x category when its action
    applies to the case (basis 'strategy'), else the top of actionSelection.rank (basis 'ranking'); with the
    runner-up, the strategy if any, and the reasons in words. Another client's case is NOT_FOUND."""
    found = service.recommend(ctx.db, input.case_id)
    r = found.ranking
    return RecommendOut(
        case_id=r.case_id,
        payer=r.payer,
        category=r.category,
        amount_at_stake=r.amount_at_stake,
        basis=found.basis,
        recommended=None if found.recommended is None else item_out(found.recommended),
        runner_up=None if found.runner_up is None else item_out(found.runner_up),
        strategy=None if found.strategy is None else StrategyOut.model_validate(found.strategy),
        reasons=list(found.reasons),
    )
