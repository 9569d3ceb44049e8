"""actionDecisionSupport: the next action for one case. A manager's strategy for the case's payer x
category (recoveryStrategy.set) wins over the expected-value ranking (actionSelection) when its action
still applies to the case; the answer says which was used. Reads only; never commits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session

from api.intelligence.action_selection import service as selection
from api.intelligence.recovery_strategy import service as strategies
from api.intelligence.recovery_strategy.models import RecoveryStrategy

Basis = Literal["strategy", "ranking"]


@dataclass(frozen=True)
class Recommendation:
    ranking: selection.Ranking
    recommended: selection.RankedAction | None  # None: no action applies to the case
    runner_up: selection.RankedAction | None
    basis: Basis
    strategy: RecoveryStrategy | None
    reasons: tuple[str, ...]


def recommend(db: Session, case_id: int) -> Recommendation:
    """The recommended action, the runner-up and why. Another client's case is NOT_FOUND."""
    ranking = selection.rank(db, case_id)
    strategy = strategies.find(db, ranking.payer, ranking.category)
    items = list(ranking.items)
    if not items:
        return Recommendation(ranking, None, None, "ranking", strategy, ("No active action applies to this case.",))
    chosen = next((i for i in items if strategy is not None and i.action.key == strategy.action_key), None)
    if chosen is not None and strategy is not None:
        runner_up = next((i for i in items if i is not chosen), None)
        position = items.index(chosen) + 1
        why = (
            f"A manager set the strategy '{strategy.action_key}' for {strategy.payer_key} x {ranking.category};"
            f" it wins over the ranking, where it is number {position} of {len(items)} by expected value."
        )
        return Recommendation(ranking, chosen, runner_up, "strategy", strategy, (why, *chosen.reasons))
    top = items[0]
    runner_up = items[1] if len(items) > 1 else None
    if strategy is not None:
        lead = (
            f"The strategy '{strategy.action_key}' set for {strategy.payer_key} x {ranking.category} is inactive"
            " or no longer applies to this case, so the ranking was used."
        )
    else:
        lead = f"No strategy is set for {strategies.payer_key_of(ranking.payer)} x {ranking.category}: the ranking was used."
    why = f"{lead} '{top.action.key}' has the highest expected value ({top.valued.expected_value:.2f})"
    if runner_up is not None:
        margin = top.valued.expected_value - runner_up.valued.expected_value
        why += (
            f", {margin:.2f} more than the runner-up '{runner_up.action.key}' ({runner_up.valued.expected_value:.2f})"
        )
    return Recommendation(ranking, top, runner_up, "ranking", strategy, (why + ".", *top.reasons))
