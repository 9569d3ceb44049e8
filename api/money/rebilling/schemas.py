"""Inputs and outputs of rebilling.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema

RebillKind = Literal["corrected", "resubmission"]
FrequencyCode = Literal["7", "8"]
RebillState = Literal["draft", "ready", "submitted", "accepted", "rejected"]
OverrideReason = Field(
    default=None, min_length=1, max_length=1000, description="Why filing past the timely-filing limit is justified"
)


class CreateRebillIn(Schema):
    case_id: DbId | None = Field(default=None, description="The denial case (its claim, payer and date of service)")
    claim_key: str | None = Field(default=None, min_length=1, max_length=80, description="Without a case: CLP01")
    payer: str | None = Field(default=None, min_length=1, max_length=200, description="Without a case: the payer")
    payer_class: str | None = Field(
        default=None,
        min_length=1,
        max_length=30,
        description="medicare, medicaid, commercial, ... (default: the case's)",
    )
    service_date: Day | None = Field(default=None, description="Date of service (default: the case's)")
    kind: RebillKind
    frequency_code: FrequencyCode = Field(description="CLM05-3: 7 replacement of a prior claim, 8 void")
    override_reason: str | None = OverrideReason


class RebillRef(Schema):
    id: DbId


class MarkSubmittedIn(Schema):
    id: DbId
    submitted_on: Day | None = Field(
        default=None, description="Default: today in the client's time zone; never in the future"
    )
    payer_reference: str | None = Field(default=None, min_length=1, max_length=80, description="Payer's claim number")
    override_reason: str | None = OverrideReason


class RecordResponseIn(Schema):
    id: DbId
    outcome: Literal["accepted", "rejected"]


class ListRebillsIn(PageInput):
    state: RebillState | None = None
    case_id: DbId | None = None
    kind: RebillKind | None = None


class RebillOut(Output):
    id: int
    case_id: int | None
    claim_key: str
    payer: str
    payer_class: str | None
    kind: str
    frequency_code: str
    service_date: date
    timely_filing_due_on: date | None = Field(description="None: no timely-filing limit applies")
    timely_filing_days: int | None
    timely_filing_rule: str | None
    filed_late: bool = Field(description="An override reason allowed it past the limit")
    state: str
    submitted_on: date | None
    payer_reference: str | None
    created_by: int
    created_at: datetime
    state_changed_at: datetime
    state_changed_by: int


class RebillPage(Page[RebillOut]):
    pass
