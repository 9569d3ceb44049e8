"""Inputs and outputs of claims.*. Money is a Decimal with two places in, an exact decimal string out."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from api.infra.marts.serving import Money
from api.rpc.schema import DbId, Output, PageInput, Schema

ClaimState = Literal[
    "draft",
    "in_review",
    "correction_requested",
    "corrected",
    "ready_for_submission_preparation",
    "approved_for_submission_preparation",
    "submitted",
    "adjudicated_paid",
    "adjudicated_partially_paid",
    "adjudicated_denied",
    "closed",
    "withdrawn",
]
Origin = Literal["manual", "837", "csv", "synthetic", "migration"]
AmountKind = Literal["expected", "billed", "allowed", "paid", "patient"]
AmountSource = Literal["contract", "remittance", "manual"]

# No X12 separators or control characters: a claim key travels inside X12 files.
ClaimKey = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._/-]*$")]
ProcedureCode = Annotated[str, StringConstraints(to_upper=True, pattern=r"^[A-Za-z0-9]{4,8}$")]
Modifier = Annotated[str, StringConstraints(to_upper=True, pattern=r"^[A-Za-z0-9]{2}$")]
RevenueCode = Annotated[str, StringConstraints(pattern=r"^[0-9]{3,4}$")]
DiagnosisCode = Annotated[
    str, StringConstraints(to_upper=True, pattern=r"^[A-Za-z][0-9][0-9A-Za-z]([0-9A-Za-z]{1,4})?$")
]
PayerName = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[^*~^:\x00-\x1f]+$")]
Identifier = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9._:-]+$")]
PlaceOfService = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9]{2}$"),
    Field(description="The CMS 2-digit place-of-service code (e.g. 11 office, 22 outpatient hospital)"),
]
# Trimmed and upper-cased: prior-authorization requirements compare plans so (payerRules' `plan`).
Plan = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, to_upper=True, min_length=1, max_length=80, pattern=r"^[A-Za-z0-9._: -]+$"
    ),
    Field(description="The plan the claim is billed under (837 SBR03, the insured group or policy number)"),
]
Reason = Annotated[str, StringConstraints(min_length=3, max_length=1000)]
# Two places, bounded well inside the Numeric(18, 2) columns.
Amount = Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)]
Units = Annotated[Decimal, Field(gt=0, le=Decimal("99999"), max_digits=8, decimal_places=3)]


class ClaimRef(Schema):
    id: DbId


class ClaimLineIn(Schema):
    procedure_code: ProcedureCode | None = Field(default=None, description="CPT/HCPCS code")
    modifiers: list[Modifier] = Field(default_factory=list, max_length=4)
    revenue_code: RevenueCode | None = None
    units: Units = Decimal(1)
    charge: Amount
    service_date_from: date
    service_date_to: date | None = None
    place_of_service: PlaceOfService | None = Field(default=None, description="The line's, when not the claim's")


class ClaimFields(Schema):
    """The header fields a claim is created with and a correction may change."""

    payer: PayerName | None = None
    payer_id: Identifier | None = None
    filing_indicator: Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]{1,2}$")] | None = Field(
        default=None, description="Claim filing indicator (SBR09/CLP06), e.g. CI, MB, MC"
    )
    statement_from: date | None = None
    statement_to: date | None = None
    facility_type: Annotated[str, StringConstraints(pattern=r"^[0-9]{2}$")] | None = None
    bill_type: Annotated[str, StringConstraints(pattern=r"^[0-9]{3,4}$")] | None = None
    place_of_service: PlaceOfService | None = None
    plan: Plan | None = None
    diagnosis_codes: list[DiagnosisCode] | None = Field(default=None, max_length=25, description="ICD-10, no dot")
    patient_ref: Identifier | None = Field(
        default=None, description="An opaque reference to the patient in the caller's system, never a name"
    )


class CreateIn(ClaimFields):
    claim_key: ClaimKey = Field(description="The provider's patient control number, unique per client")
    payer: PayerName
    statement_from: date
    statement_to: date
    total_charge: Amount | None = Field(default=None, description="Must equal the sum of line charges when given")
    lines: list[ClaimLineIn] = Field(min_length=1, max_length=200)


class ListIn(PageInput):
    state: ClaimState | None = None
    origin: Origin | None = None
    payer: str | None = Field(default=None, max_length=200)
    claim_key: str | None = Field(default=None, max_length=80)
    is_synthetic: bool | None = None


class MoveIn(ClaimRef):
    reason: Reason | None = None


class ReasonIn(ClaimRef):
    reason: Reason


class CorrectionIn(ClaimRef):
    changes: ClaimFields | None = Field(default=None, description="Header fields the correction changed")
    lines: list[ClaimLineIn] | None = Field(
        default=None, min_length=1, max_length=200, description="The corrected lines, replacing the old ones"
    )
    reason: Reason | None = None


class AttachmentIn(ClaimRef):
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    media_type: Annotated[str, StringConstraints(max_length=100, pattern=r"^[a-z]+/[a-z0-9.+-]+$")]
    sha256: Annotated[str, StringConstraints(to_lower=True, pattern=r"^[0-9a-fA-F]{64}$")]
    size_bytes: int = Field(ge=0, le=10 * 2**30)
    storage_ref: Annotated[str, StringConstraints(min_length=1, max_length=500)] | None = None


class AmountIn(ClaimRef):
    kind: AmountKind
    amount: Amount
    source: AmountSource
    reference: Annotated[str, StringConstraints(min_length=1, max_length=120)] | None = None


class DenialLinkIn(ClaimRef):
    case_id: DbId | None = Field(default=None, description="Link this case only (default: every case of the claim)")


class ExternalActionIn(ClaimRef):
    target_system: Literal["clearinghouse", "payer_portal", "ehr"]
    action: Literal["submit_claim", "claim_status_inquiry", "send_attachments"]
    partner_profile_id: DbId | None = Field(default=None, description="An approved trading partner profile")


class PartnerProfileIn(Schema):
    name: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    kind: Literal["clearinghouse", "payer"]
    isa_qualifier: Annotated[str, StringConstraints(pattern=r"^[0-9A-Z]{2}$")] = Field(description="ISA05/ISA07")
    isa_id: Annotated[str, StringConstraints(min_length=1, max_length=15, pattern=r"^[A-Za-z0-9 ._-]+$")]
    gs_id: Annotated[str, StringConstraints(min_length=2, max_length=15, pattern=r"^[A-Za-z0-9 ._-]+$")]
    payer_id: Identifier | None = None
    connection_notes: Annotated[str, StringConstraints(max_length=2000)] | None = Field(
        default=None, description="How to reach the partner (no secrets: credentials live elsewhere)"
    )


class PartnerReviewIn(Schema):
    id: DbId
    decision: Literal["approved", "rejected"]
    reason: Reason | None = None


class SyntheticUatIn(Schema):
    seed: int = Field(ge=0, le=2**31 - 1)
    count: int = Field(default=5, ge=1, le=200)


class SyntheticResponseIn(ClaimRef):
    outcome: Literal["paid", "partially_paid", "denied"]
    paid_amount: Amount | None = Field(default=None, description="Default: the charge (paid), half (partial), 0")
    group_code: Literal["CO", "PR", "OA", "PI"] | None = Field(default=None, description="Default CO")
    carc: Annotated[str, StringConstraints(to_upper=True, pattern=r"^[A-Za-z0-9]{1,5}$")] | None = Field(
        default=None, description="Reason for the unpaid part (default 45 for a payment, 50 otherwise)"
    )


# --- outputs ---------------------------------------------------------------------------------


class ClaimLineOut(Output):
    line_number: int
    procedure_code: str | None
    modifiers: list[str]
    revenue_code: str | None
    units: Decimal | None
    charge: Money
    service_date_from: date | None
    service_date_to: date | None
    place_of_service: str | None = Field(description="The line's own place of service; null: the claim's")


class ClaimOut(Output):
    id: int
    claim_key: str
    payer: str | None
    payer_id: str | None
    filing_indicator: str | None
    statement_from: date | None
    statement_to: date | None
    total_charge: Money
    facility_type: str | None
    bill_type: str | None
    place_of_service: str | None = Field(description="CMS place-of-service code (837P/837D CLM05-1); null: none")
    plan: str | None = Field(description="The plan billed under (837 SBR03, upper-cased); null: none")
    diagnosis_codes: list[str]
    origin: str
    source_batch_id: int | None
    patient_ref: str | None
    is_synthetic: bool
    state: str
    state_changed_at: datetime
    allowed_moves: list[str] = Field(default_factory=list, description="States the claim may move to next")
    created_by: int | None
    created_at: datetime
    submission_requested_by: int | None
    submission_approved_by: int | None


class TransitionOut(Output):
    id: int
    from_state: str | None
    to_state: str
    actor_user_id: int | None
    reason: str | None
    created_at: datetime


class AmountOut(Output):
    id: int
    claim_id: int
    kind: str
    amount: Money
    source: str
    reference: str | None
    recorded_by: int | None
    created_at: datetime


class AttachmentOut(Output):
    id: int
    claim_id: int
    title: str
    media_type: str
    sha256: str
    size_bytes: int
    storage_ref: str | None
    added_by: int | None
    created_at: datetime


class LinkOut(Output):
    id: int
    claim_id: int
    kind: str
    target_id: int
    reference: str | None
    details: dict[str, Any]
    created_at: datetime


class ExternalActionOut(Output):
    id: int
    claim_id: int
    target_system: str
    action: str
    partner_profile_id: int | None
    payload: dict[str, Any]
    payload_sha256: str
    status: str = Field(description="prepared: nothing is ever sent from here")
    prepared_by: int | None
    created_at: datetime


class ClaimDetailOut(ClaimOut):
    lines: list[ClaimLineOut]
    amounts: list[AmountOut]
    attachments: list[AttachmentOut]
    links: list[LinkOut]
    external_actions: list[ExternalActionOut]
    transitions: list[TransitionOut]


class DenialLinkOut(Output):
    claim_id: int
    links: list[LinkOut]


class EraLinkOut(Output):
    claim_id: int
    links: list[LinkOut]
    batch_ids: list[int]
    payers: list[str]
    entries: int
    paid_total: Money
    denied_total: Money
    patient_responsibility_total: Money
    adjustment_total: Money
    last_payment_date: date | None


class PartnerProfileOut(Output):
    id: int
    name: str
    kind: str
    isa_qualifier: str
    isa_id: str
    gs_id: str
    payer_id: str | None
    connection_notes: str | None
    status: str
    author_user_id: int | None
    reviewed_by: int | None
    reviewed_at: datetime | None
    review_reason: str | None
    created_at: datetime


class SyntheticUatOut(Output):
    seed: int
    created: int = Field(description="Claims created by this call (0 when the seed's claims exist already)")
    claims: list[ClaimOut]


class SyntheticResponseOut(Output):
    claim_id: int
    batch_id: int = Field(description="The import batch of the 835: confirm it with ingestion.confirmImportBatch")
    batch_status: str
    duplicate: bool
    outcome: str
    paid_amount: Money
    trace_number: str
