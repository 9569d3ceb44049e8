"""Inputs and outputs of organizations.*."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, TypeGuard, get_args

from pydantic import Field, SecretStr

from api.rpc.schema import DbId, Output, Schema

Role = Literal["admin", "manager", "specialist", "analyst", "auditor"]
ROLE_NAMES: frozenset[str] = frozenset(get_args(Role))


def is_role(value: str) -> TypeGuard[Role]:
    return value in ROLE_NAMES


def as_role(value: str) -> Role:
    """A role read from the database (a plain string column), checked against the roles the API knows."""
    if not is_role(value):
        raise ValueError(f"unknown membership role {value!r} in the database")
    return value


class CreateOrganizationIn(Schema):
    name: str = Field(min_length=2, max_length=200)
    slug: str | None = Field(default=None, min_length=2, max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")
    first_client_name: str = Field(
        min_length=2, max_length=200, description="Every organization starts with one client"
    )
    first_client_npi: str | None = Field(default=None, pattern=r"^\d{10}$")


class OrganizationOut(Output):
    id: int
    name: str
    slug: str
    status: str
    created_at: datetime


class CreatedOrganizationOut(OrganizationOut):
    first_client_id: int


TIME_ZONE_DESCRIPTION = (
    "The hospital's IANA time zone (e.g. America/Chicago, Pacific/Honolulu): its deadlines and the worklist's "
    "days left count on its local date; null: the platform default (DEFAULT_TIME_ZONE)"
)
TimeZoneName = Field(default=None, min_length=1, max_length=64, description=TIME_ZONE_DESCRIPTION)


class ClientIn(Schema):
    name: str = Field(min_length=2, max_length=200)
    npi: str | None = Field(default=None, pattern=r"^\d{10}$")
    time_zone: str | None = TimeZoneName


class UpdateClientIn(Schema):
    client_id: DbId
    name: str | None = Field(default=None, min_length=2, max_length=200, description="Omitted: unchanged")
    time_zone: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description=TIME_ZONE_DESCRIPTION + "; omitted: unchanged, null: back to the platform default",
    )


class ClientOut(Output):
    id: int
    organization_id: int
    name: str
    npi: str | None
    status: str
    time_zone: str | None = Field(description="The hospital's IANA time zone; null: the platform default")
    created_at: datetime


ClientIds = list[DbId]
CLIENT_IDS_DESCRIPTION = (
    "The clients the membership reaches, each a client of this organization; omitted or null: every client of "
    "the organization (present and future), which only an organization-wide member may grant"
)


class InviteIn(Schema):
    email: str = Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")
    role: Role
    display_name: str = Field(default="", max_length=200)
    client_ids: ClientIds | None = Field(default=None, min_length=1, max_length=200, description=CLIENT_IDS_DESCRIPTION)


class InviteOut(Output):
    """The same shape whether or not the email already has an account. The single-use token is never in
    an answer: it is mailed to the invitee (SMTP, or the operator's outbox files in the embedded default)."""

    invitation_id: int
    email: str
    role: Role
    client_ids: list[int] | None = Field(description="The clients the membership will reach; null: every client")
    expires_at: datetime


class AcceptInvitationIn(Schema):
    token: SecretStr = Field(min_length=10, max_length=200)


class AcceptedInvitationOut(Output):
    organization_id: int
    role: Role
    client_ids: list[int] | None = Field(description="The clients the membership reaches; null: every client")


class SetRoleIn(Schema):
    user_id: DbId
    role: Role


class MemberRef(Schema):
    user_id: DbId


class MemberClientsIn(Schema):
    user_id: DbId
    client_ids: ClientIds | None = Field(min_length=1, max_length=200, description=CLIENT_IDS_DESCRIPTION)


class MemberOut(Output):
    user_id: int
    email: str
    display_name: str
    role: Role
    client_ids: list[int] | None = Field(
        default=None,
        description="The clients the membership reaches (only those you reach too); null: every client",
    )
