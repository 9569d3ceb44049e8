"""Inputs and outputs of humanAttention.*."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal, Self

from pydantic import AwareDatetime, Field, model_validator

from api.infra.marts.serving import Money
from api.rpc.schema import DbId, Output, Page, PageInput, Schema
from api.rpc.text import SINGLE_LINE

WorkingState = Literal["open", "triaged", "in_appeal", "awaiting_payer"]


class QueueIn(PageInput):
    owner: Literal["me"] | DbId | None = Field(
        default=None, description="One specialist's cases: 'me' or a user id (default: the whole client)"
    )
    team: list[DbId] | None = Field(
        default=None, min_length=1, max_length=200, description="The cases owned by any of these users"
    )
    payer: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] | None = Field(
        default=None, description="Exact payer name"
    )
    category: Annotated[str, Field(min_length=1, max_length=40), SINGLE_LINE] | None = Field(
        default=None, description="Denial category, e.g. medical_necessity"
    )
    state: WorkingState | None = Field(default=None, description="One working state (default: all four)")
    min_amount: Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)] | None = (
        Field(default=None, description="Only cases with at least this amount at stake")
    )

    @model_validator(mode="after")
    def _one_scope(self) -> Self:
        if self.owner is not None and self.team is not None:
            raise ValueError("give 'owner' or 'team', not both")
        return self


class QueueItem(Output):
    case_id: int
    rank_key: float = Field(description="The stored, date-independent sort key (higher first)")
    score: float = Field(description="Expected recovery per effort hour x the deadline discount, today")
    payer: str
    denial_category: str | None
    carc: str | None
    state: str
    owner_user_id: int | None
    amount_at_stake: Money
    overturn_probability: float
    expected_recovery: Money
    effort_hours: float
    due_on: date = Field(description="The deadline the rank used")
    deadline_assumed: bool = Field(description="True: no appeal deadline on the case, a 180-day window assumed")
    days_left: int
    urgency: float = Field(description="exp(-daysLeft / 45)")
    probability_source: Literal["model", "prior"] = Field(
        description="Which estimate gave overturnProbability: 'model' (the client's outcome model, version"
        " modelVersion, used only where its latest version beat the Beta-binomial prior on held-out outcomes)"
        " or 'prior' (the payer x category x CARC Beta-binomial); stored with the rank"
    )
    model_version: int | None = Field(description="The outcome model's version when probabilitySource is 'model'")


class QueueOut(Page[QueueItem]):
    as_of: date


class CaseRef(Schema):
    case_id: DbId


class LevelOut(Output):
    level: str
    n: int = Field(
        description="Decided appeals (won, partially won, lost) in this cell; at the payer_history level,"
        " the payer x category's denials in the remittance history"
    )
    k: int = Field(
        description="Of which overturned (won or partially won); at the payer_history level, those a later decision of the payer no longer denied"
    )
    prior_strength: float | None = Field(description="Pseudo-count of the prior centred on the parent's mean")
    mean: float
    low: float
    high: float


class ProbabilityOut(Output):
    used: float = Field(
        description="The probability the rank used (stored when the case was last scored; see probabilitySource)"
    )
    mean: float = Field(description="The Beta-binomial estimate from every decision recorded now")
    low: float = Field(description="95 % credible interval, lower bound")
    high: float = Field(description="95 % credible interval, upper bound")
    basis_level: str = Field(description="The most specific level with data for this case's cell")
    basis_n: int
    basis_k: int
    levels: list[LevelOut]


class WhyOut(Output):
    case_id: int
    as_of: date
    in_queue: bool
    not_in_queue_because: list[str]
    position: int | None = Field(description="1-based position in the client's whole queue (no filters)")
    queue_length: int
    amount_at_stake: Money
    recovered_amount: Money
    probability: ProbabilityOut
    expected_recovery: Money
    effort_hours: float
    due_on: date
    deadline_assumed: bool
    days_left: int
    urgency: float
    score: float
    rank_key: float
    probability_source: Literal["model", "prior"] = Field(
        description="Which estimate gave probability.used: 'model' (the client's outcome model, version"
        " modelVersion, used only where its latest version beat the Beta-binomial prior on held-out outcomes)"
        " or 'prior' (the payer x category x CARC Beta-binomial); stored with the rank"
    )
    model_version: int | None = Field(description="The outcome model's version when probabilitySource is 'model'")
    explanation: list[str] = Field(description="The same numbers, in words")


class SnoozeIn(Schema):
    case_id: DbId
    until: AwareDatetime = Field(description="In the future, at most 90 days ahead (with a time zone)")
    reason: Annotated[str, Field(min_length=1, max_length=500), SINGLE_LINE]


class SnoozeOut(Output):
    case_id: int
    snoozed_until: datetime
    previous_snoozed_until: datetime | None
