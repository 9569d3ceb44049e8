"""Inputs and outputs of financialClearance.*."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, Schema

Status = Literal["cleared", "blocked"]
BlockerKind = Literal["eligibility", "authorization", "claim"]
Basis = Literal["contract", "charge_ceiling"]


class ClaimRef(Schema):
    claim_id: DbId


class ListIn(PageInput):
    status: Status | None = None
    claim_id: DbId | None = None


class BlockerOut(Output):
    kind: BlockerKind
    message: str
    line_number: int | None = None
    procedure_code: str | None = None


class LineEstimateOut(Output):
    line_number: int
    procedure_code: str | None
    charge: Decimal
    allowed: Decimal
    basis: Basis = Field(description="contract: the marts' contracted amount; charge_ceiling: the charge, a ceiling")


class EstimateOut(Output):
    allowed: Decimal = Field(description="The claim's total allowed amount the estimate is worked out on")
    deductible: Decimal
    coinsurance: Decimal
    copay: Decimal
    patient: Decimal = Field(description="What the patient is expected to pay")
    plan: Decimal
    capped_by_out_of_pocket: bool
    complete: bool = Field(description="Every patient-share benefit was answered by the payer")
    missing: list[str]
    notes: list[str] = Field(description="What the figure rests on: a ceiling, a floor, no cap")
    lines: list[LineEstimateOut]


class ClearanceOut(Output):
    id: int
    claim_id: int
    status: Status
    service_date: date | None
    payer_id: str | None
    eligibility_check_id: int | None
    eligibility_status: str | None
    authorization_ids: list[int]
    blockers: list[BlockerOut]
    estimate: EstimateOut | None = Field(description="None unless an active eligibility check stands")
    evaluated_at: datetime
    evaluated_by: int | None


class StatusOut(Output):
    claim_id: int
    clearance: ClearanceOut | None = Field(description="The latest clearance; None: never cleared")
    stale: bool = Field(description="A check or an authorization was made or answered after the clearance")
    stale_because: list[str]
