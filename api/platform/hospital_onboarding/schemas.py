"""Inputs and outputs of hospitalOnboarding.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, field_validator

from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Role = Literal["admin", "manager", "specialist", "analyst", "auditor"]
ConnectorKind = Literal["era_835", "claims_export", "payments_export", "denials_export", "bank_deposits"]
State = Literal[
    "submitted", "in_review", "on_hold", "approved", "rejected", "withdrawn", "provisioned", "live", "suspended"
]
GenericTarget = Literal["in_review", "on_hold", "withdrawn", "live", "suspended"]
Email = Annotated[str, Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")]
Reason = Annotated[str, Field(min_length=3, max_length=2000), MULTI_LINE]

# Retention bounds of evidenceControl (api/evidence/evidence_control/retention.py), checked on submission.
RETENTION_MIN_YEARS = 1
RETENTION_MAX_YEARS = 100


class LegalDetailsIn(Schema):
    legal_name: Annotated[str, Field(min_length=2, max_length=200), SINGLE_LINE]
    tax_id: str = Field(pattern=r"^\d{2}-?\d{7}$", description="Employer identification number (EIN)")
    npi: str | None = Field(default=None, pattern=r"^\d{10}$", description="Organizational NPI")
    address: Annotated[str, Field(min_length=5, max_length=500), MULTI_LINE]


class ExpectedVolumesIn(Schema):
    monthly_claims: int = Field(ge=0, le=100_000_000)
    monthly_remittance_files: int = Field(ge=0, le=1_000_000)
    monthly_denials: int = Field(ge=0, le=100_000_000)


class RequestedUserIn(Schema):
    email: Email
    role: Role
    display_name: Annotated[str, Field(max_length=200), SINGLE_LINE] = ""


def _no_repeats(values: list[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value.lower() in seen:
            raise ValueError(f"lists the same {what} twice")
        seen.add(value.lower())


class SubmitRequestIn(Schema):
    hospital_name: Annotated[str, Field(min_length=2, max_length=200), SINGLE_LINE] = Field(
        description="The client (facility) name it will have once provisioned"
    )
    legal: LegalDetailsIn
    contact_email: Email
    expected_volumes: ExpectedVolumesIn
    payers: list[Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]] = Field(
        default_factory=list, max_length=200
    )
    requested_users: list[RequestedUserIn] = Field(
        default_factory=list, max_length=100, description="Invited with their roles when the request is provisioned"
    )
    connector_kinds: list[ConnectorKind] = Field(
        default_factory=list, max_length=10, description="Each gets its default connector profile on provisioning"
    )
    retention_years: int = Field(
        default=7, ge=RETENTION_MIN_YEARS, le=RETENTION_MAX_YEARS, description="Evidence retention for the client"
    )

    @field_validator("payers")
    @classmethod
    def _payers_once(cls, value: list[str]) -> list[str]:
        _no_repeats(value, "payer")
        return value

    @field_validator("requested_users")
    @classmethod
    def _users_once(cls, value: list[RequestedUserIn]) -> list[RequestedUserIn]:
        _no_repeats([u.email for u in value], "email")
        return value

    @field_validator("connector_kinds")
    @classmethod
    def _kinds_once(cls, value: list[str]) -> list[str]:
        _no_repeats(value, "connector kind")
        return value


class RequestRef(Schema):
    id: DbId


class ReviewIn(Schema):
    id: DbId
    reason: Reason = "Review opened"


class DecideIn(Schema):
    id: DbId
    decision: Literal["approved", "rejected"]
    reason: Reason


class TransitionIn(Schema):
    id: DbId
    to: GenericTarget = Field(description="approved/rejected go through decide, provisioned through provision")
    reason: Reason


class ListRequestsIn(PageInput):
    state: State | None = None


class EventsIn(PageInput):
    id: DbId


class LegalDetailsOut(Output):
    legal_name: str
    tax_id: str
    npi: str | None
    address: str


class ExpectedVolumesOut(Output):
    monthly_claims: int
    monthly_remittance_files: int
    monthly_denials: int


class RequestedUserOut(Output):
    email: str
    role: Role
    display_name: str


class RequestOut(Output):
    id: int
    organization_id: int
    hospital_name: str
    legal: LegalDetailsOut
    contact_email: str
    expected_volumes: ExpectedVolumesOut
    payers: list[str]
    requested_users: list[RequestedUserOut]
    connector_kinds: list[ConnectorKind]
    retention_years: int
    state: State
    allowed_moves: list[str] = Field(description="States reachable from this one in one move")
    state_changed_at: datetime
    submitted_by_user_id: int
    created_at: datetime
    decided_by_user_id: int | None
    decided_at: datetime | None
    decision_reason: str | None
    provisioned_client_id: int | None
    provisioned_by_user_id: int | None
    provisioned_at: datetime | None


class EventOut(Output):
    id: int
    request_id: int
    from_state: str | None = Field(description="None for the submission")
    to_state: str
    reason: str
    actor_user_id: int
    created_at: datetime


class ProvisionedInviteOut(Output):
    """An invitation of a requested user, reaching the new client only; its token is mailed to the user
    (never answered)."""

    invitation_id: int
    email: str
    role: Role
    client_ids: list[int] = Field(description="The clients the membership will reach: the new client only")
    expires_at: datetime


class ProvisionOut(Output):
    request: RequestOut
    client_id: int = Field(description="The new client (send it as X-Client-Id)")
    client_name: str
    invitations: list[ProvisionedInviteOut]
    already_members: list[str] = Field(
        description="Requested users who were members of the organization already (their membership is kept "
        "as it is: organizations.setMemberClients extends it to the new client)"
    )
    connector_profiles: list[str] = Field(description="Connector profiles provisioned for the new client")
    retention_years: int
    automation_enabled: bool = Field(
        description="Always false: automation stays off until every activation gate passed"
    )
