"""Inputs and outputs of actionSelection.*."""

from __future__ import annotations

from pydantic import Field

from api.infra.marts.serving import Money
from api.rpc.schema import DbId, Output, Schema


class CaseRef(Schema):
    case_id: DbId


class ProbabilityOut(Output):
    mean: float
    low: float = Field(description="95% credible interval, lower bound")
    high: float = Field(description="95% credible interval, upper bound")
    sample_size: int = Field(description="Observations the posterior rests on (0: the prior alone)")


class RankedActionOut(Output):
    action_key: str
    label: str
    kind: str
    evidence: str = Field(description="payer_category | none | certain_nothing: what P(success) rests on")
    probability: ProbabilityOut
    amount: Money = Field(description="What the action may recover (0 for a write-off)")
    effort_hours: float
    effort_cost: Money
    expected_value: Money = Field(description="probability.mean x amount - effortCost")
    expected_value_low: Money
    expected_value_high: Money
    reasons: list[str]


class RankOut(Output):
    case_id: int
    payer: str
    category: str
    amount_at_stake: Money
    items: list[RankedActionOut]
