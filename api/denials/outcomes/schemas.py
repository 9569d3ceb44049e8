"""Inputs and outputs of outcomes.*. Money is a Decimal with two places in, an exact decimal string out."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from api.infra.marts.serving import Money
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

Decision = Literal["won", "partially_won", "lost", "withdrawn"]
Amount = Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)]


class RecordOutcomeIn(Schema):
    case_id: DbId
    level: int = Field(
        default=1, ge=1, le=5, description="Appeal level: 1 first-level, 2 second-level, 3 external review ..."
    )
    decision: Decision
    amount_recovered: Amount = Field(
        default=Decimal("0"),
        description="Money the decision recovers (0 for lost or withdrawn; at most what is still at stake)",
    )
    decided_on: date = Field(description="The payer's decision date (not in the future)")
    payer_reference: Annotated[str, Field(min_length=1, max_length=80), SINGLE_LINE] | None = Field(
        default=None, description="The payer's reference for the decision"
    )


class OutcomeRef(Schema):
    id: DbId


class OutcomeOut(Output):
    id: int
    case_id: int
    level: int
    decision: str
    amount_recovered: Money
    decided_on: date
    payer_reference: str | None
    recorded_by_user_id: int
    created_at: datetime
    case_state_before: str
    case_state_after: str
    payer: str
    denial_category: str | None
    carc: str | None


class RecordedOutcomeOut(OutcomeOut):
    case_recovered_amount: Money = Field(description="The case's recovered amount after this decision")


class ListOutcomesIn(PageInput):
    case_id: DbId | None = None
    decision: Decision | None = None
    payer: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] | None = Field(
        default=None, description="Exact payer name"
    )
    decided_from: date | None = Field(default=None, description="Decided on or after this day")
    decided_to: date | None = Field(default=None, description="Decided on or before this day")

    @model_validator(mode="after")
    def _range(self) -> Self:
        if self.decided_from and self.decided_to and self.decided_from > self.decided_to:
            raise ValueError("'decidedFrom' must not be after 'decidedTo'")
        return self
