"""Inputs and outputs of payerInteractions.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal, Self

from pydantic import AwareDatetime, Field, model_validator

from api.denials.payer_interactions import rules
from api.denials.payer_interactions.vocabulary import Outcome
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Channel = Literal["phone", "portal", "fax", "mail", "email"]
Direction = Literal["outbound", "inbound"]
Payer = Annotated[str, Field(min_length=1, max_length=rules.MAX_PAYER), SINGLE_LINE]


class LogInteractionIn(Schema):
    case_id: DbId | None = Field(default=None, description="The denial case (or give claimKey)")
    claim_key: Annotated[str, Field(min_length=1, max_length=rules.MAX_CLAIM_KEY), SINGLE_LINE] | None = Field(
        default=None, description="The claim (CLP01) when there is no case; must match the case's when both are given"
    )
    channel: Channel
    direction: Direction = "outbound"
    occurred_at: AwareDatetime = Field(description="When it happened (with a time zone; not in the future)")
    payer: Payer | None = Field(default=None, description="Default: the case's payer")
    payer_representative: (
        Annotated[str, Field(min_length=1, max_length=rules.MAX_REPRESENTATIVE), SINGLE_LINE] | None
    ) = None
    reference_number: Annotated[str, Field(min_length=1, max_length=rules.MAX_REFERENCE), SINGLE_LINE] | None = None
    summary: Annotated[str, Field(min_length=1, max_length=rules.MAX_SUMMARY), MULTI_LINE] = Field(
        description="What was said or seen (free text; never logged or audited)"
    )
    outcome: Outcome
    next_step: Annotated[str, Field(min_length=1, max_length=rules.MAX_NEXT_STEP), MULTI_LINE] | None = None
    next_step_on: date | None = None

    @model_validator(mode="after")
    def _case_or_claim(self) -> Self:
        if self.case_id is None and self.claim_key is None:
            raise ValueError("give 'caseId' or 'claimKey'")
        return self


class InteractionOut(Output):
    id: int
    case_id: int | None
    claim_key: str | None
    channel: str
    direction: str
    logged_by_user_id: int
    occurred_at: datetime
    payer: str
    payer_representative: str | None
    reference_number: str | None
    summary: str
    outcome: str
    next_step: str | None
    next_step_on: date | None
    created_at: datetime


class ListInteractionsIn(PageInput):
    payer: Payer | None = Field(default=None, description="Exact payer name")
    channel: Channel | None = None
    case_id: DbId | None = None
    occurred_from: date | None = Field(default=None, description="From this day (inclusive, UTC)")
    occurred_to: date | None = Field(default=None, description="To this day (inclusive, UTC)")

    @model_validator(mode="after")
    def _range(self) -> Self:
        if self.occurred_from and self.occurred_to and self.occurred_from > self.occurred_to:
            raise ValueError("'occurredFrom' must not be after 'occurredTo'")
        return self


class ForCaseIn(PageInput):
    case_id: DbId
