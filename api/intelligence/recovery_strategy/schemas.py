"""Inputs and outputs of recoveryStrategy.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.infra.marts.inputs import PayerKey
from api.infra.marts.serving import Money, SnapshotOut
from api.intelligence.action_taxonomy.catalogue import Category
from api.rpc.schema import ActionKey, Output, Schema
from api.rpc.text import MULTI_LINE


class CellIn(Schema):
    payer_key: PayerKey
    category: Category


class SetStrategyIn(CellIn):
    action_key: ActionKey
    note: Annotated[str, MULTI_LINE] | None = Field(default=None, min_length=1, max_length=1000)


class StrategyOut(Output):
    action_key: str
    note: str | None
    updated_by: int | None
    updated_at: datetime


class SuggestionOut(Output):
    action_key: str = Field(description="appeal-level-1 or write-off")
    sample_size: int = Field(description="Claims the payer denied in the category over the window")
    overturned_claims: int
    overturn_rate: float
    rate_low: float = Field(description="95% Wilson interval, lower bound")
    rate_high: float = Field(description="95% Wilson interval, upper bound")
    average_denied_amount: Money
    pessimistic_recovery: Money = Field(description="rateLow x averageDeniedAmount")
    appeal_effort_cost: Money = Field(description="The first-level appeal's effort hours x cost per hour")
    from_month: str
    to_month: str
    rule: str = Field(description="The rule and its numbers, in words")


class StrategyAnswer(Output):
    payer_key: str
    category: str
    strategy: StrategyOut | None = Field(description="What a manager set (null: nothing set)")
    suggestion: SuggestionOut | None = Field(description="What the denial history suggests (null: see suggestionNote)")
    suggestion_note: str
    snapshot: SnapshotOut | None = None


class SetStrategyOut(Output):
    payer_key: str
    category: str
    strategy: StrategyOut
    previous_action_key: str | None
