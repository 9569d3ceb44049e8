"""Inputs and outputs of actionDecisionSupport.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.serving import Money
from api.intelligence.action_selection.schemas import CaseRef, RankedActionOut
from api.intelligence.recovery_strategy.schemas import StrategyOut
from api.rpc.schema import Output

__all__ = ["CaseRef", "RecommendOut"]


class RecommendOut(Output):
    case_id: int
    payer: str
    category: str
    amount_at_stake: Money
    basis: Literal["strategy", "ranking"] = Field(description="Which decided: a manager's strategy or the ranking")
    recommended: RankedActionOut | None = Field(description="null: no active action applies to the case")
    runner_up: RankedActionOut | None
    strategy: StrategyOut | None = Field(description="The strategy set for the case's payer x category, if any")
    reasons: list[str]
