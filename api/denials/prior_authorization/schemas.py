"""Inputs and outputs of priorAuthorization.*."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema
from api.rpc.text import MULTI_LINE

PayerType = Literal["medicare", "medicare_advantage", "medicaid", "tricare", "commercial", "erisa"]
StoredState = Literal["requested", "pending", "approved", "denied", "withdrawn"]
ShownState = Literal["requested", "pending", "approved", "expired", "denied", "withdrawn"]
Outcome = Literal["pending", "approved", "denied", "withdrawn"]
Missing = Literal["pending", "units_exceeded", "expired", "dates_not_covered", "denied", "none_requested"]

# The shape only; the service checks the code itself (CPT / HCPCS Level II) and says what is expected.
Code = Annotated[
    str, StringConstraints(min_length=1, max_length=11, pattern=r"^[A-Za-z0-9-]+$"), Field(description="CPT/HCPCS")
]
PayerId = Annotated[
    str, StringConstraints(min_length=1, max_length=80, pattern=r"^(\*|[A-Za-z0-9._:-]+)$"), Field(description="or *")
]
Plan = Annotated[
    str, StringConstraints(min_length=1, max_length=80, pattern=r"^(\*|[A-Za-z0-9._: -]+)$"), Field(description="or *")
]
Reference = Annotated[str, Field(min_length=1, max_length=50, pattern=r"^[A-Za-z0-9._/-]+$")]
Reason = Annotated[str, Field(min_length=3, max_length=1000), MULTI_LINE]
Units = Annotated[Decimal, Field(gt=0, le=Decimal("99999"), max_digits=8, decimal_places=3)]


class AuthorizationRef(Schema):
    id: DbId


class ClaimRef(Schema):
    claim_id: DbId


class RequestIn(Schema):
    """By line (its code, units and dates unless given) or by procedure code."""

    claim_id: DbId
    line_number: int | None = Field(default=None, ge=1, le=9999)
    procedure_code: Code | None = None
    units: Units | None = Field(default=None, description="Default: the line's units (else 1)")
    service_from: Day | None = None
    service_to: Day | None = None
    case_id: DbId | None = Field(default=None, description="The denial case the request answers, if any")
    payer_reference: Reference | None = Field(default=None, description="The payer's tracking number")

    @model_validator(mode="after")
    def _valid(self) -> RequestIn:
        if self.line_number is None and self.procedure_code is None:
            raise ValueError("give 'lineNumber' or 'procedureCode'")
        if self.service_from is not None and self.service_to is not None and self.service_to < self.service_from:
            raise ValueError("'serviceTo' is before 'serviceFrom'")
        return self


class RecordIn(Schema):
    """The payer's answer: an approval with its number, approved units and valid dates; a denial or a
    withdrawal with its reason."""

    id: DbId
    outcome: Outcome
    authorization_number: Reference | None = None
    approved_units: Units | None = None
    valid_from: Day | None = None
    valid_to: Day | None = None
    reason: Reason | None = None
    payer_reference: Reference | None = None

    @model_validator(mode="after")
    def _valid(self) -> RecordIn:
        if self.valid_from is not None and self.valid_to is not None and self.valid_to < self.valid_from:
            raise ValueError("'validTo' is before 'validFrom'")
        return self


class AuthorizationOut(Output):
    id: int
    claim_id: int
    case_id: int | None
    line_number: int | None = Field(description="null: every line of the code")
    procedure_code: str
    requested_units: Decimal
    service_from: date
    service_to: date
    state: ShownState = Field(description="expired: approved, its valid-to date passed (decided at read)")
    stored_state: StoredState
    state_changed_at: datetime
    payer_reference: str | None
    authorization_number: str | None
    approved_units: Decimal | None
    valid_from: date | None
    valid_to: date | None
    decision_reason: str | None
    allowed_moves: list[str]
    created_at: datetime


class ListIn(PageInput):
    claim_id: DbId | None = None
    state: StoredState | None = None


class RequirementOut(Output):
    id: int | None = Field(description="The client's requirement id; null for a platform default")
    origin: str = Field(description="platform (reference list) | client")
    reference: str
    payer_type: str
    payer_id: str
    plan: str
    procedure_codes: str = Field(description="A code or a range, e.g. 70551-70553")
    place_of_service: str
    revenue_code: str
    requires_authorization: bool = Field(description="false: an exemption overriding a broader requirement")
    effective_from: date
    effective_to: date | None
    source: str
    version: int


class RequirementsIn(PageInput):
    payer_type: PayerType | None = None
    payer_id: PayerId | None = None
    procedure_code: Code | None = Field(default=None, description="Requirements whose codes include this one")


class RequirementsOut(Page[RequirementOut]):
    defaults: list[RequirementOut] = Field(description="The platform's reference requirements matching the filters")


class CheckIn(Schema):
    """A service described by hand (before it is rendered: a plan and a place of service may be given)."""

    payer_type: PayerType | Literal["unknown"]
    payer_id: PayerId | None = None
    plan: Plan | None = None
    procedure_code: Code
    place_of_service: Annotated[str, StringConstraints(pattern=r"^[0-9]{2}$")] | None = None
    revenue_code: Annotated[str, StringConstraints(pattern=r"^[0-9]{3,4}$")] | None = None
    service_date: Day


class CheckOut(Output):
    required: bool
    assumed: bool = Field(description="payerType unknown: a common payer type's requirement is assumed")
    requirement: RequirementOut | None = Field(description="The requirement that applies; null: none")


class MissingOut(Output):
    line_number: int
    procedure_code: str
    requirement: str
    source: str
    assumed: bool
    reason: Missing
    authorization_id: int | None
    explanation: str


class LineOut(Output):
    line_number: int
    procedure_code: str | None
    units: Decimal
    required: bool
    assumed: bool
    requirement: RequirementOut | None
    covered_by: int | None = Field(description="The approved request covering the line")
    missing: Missing | None


class StatusOut(Output):
    claim_id: int
    clear: bool = Field(description="No line needs an authorization the claim does not have")
    payer_type: str | None
    payer_type_assumed: bool
    payer_type_basis: str
    lines: list[LineOut]
    missing: list[MissingOut]
    authorizations: list[AuthorizationOut]
