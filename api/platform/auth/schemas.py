"""Inputs and outputs of auth.*."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field, SecretStr

from api.rpc.schema import Output, Schema

# Secrets travel as SecretStr: the audit digest leaves them out (see api.platform.audit.digest),
# and they never appear in a repr or a log line.


class LoginIn(Schema):
    email: str = Field(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")
    password: SecretStr = Field(min_length=1, max_length=1024)


class LoginOut(Output):
    token: str
    expires_at: datetime
    user_id: int


class MembershipOut(Output):
    organization_id: int
    organization_name: str
    role: str


class SessionOut(Output):
    user_id: int
    email: str
    display_name: str
    method: str
    is_platform_admin: bool
    memberships: list[MembershipOut]


class CreateApiKeyIn(Schema):
    name: str = Field(min_length=1, max_length=120)
    expires_in_days: int | None = Field(
        default=None,
        ge=1,
        le=3650,
        description="Days until the key stops working (default 90; at most API_KEY_MAX_DAYS)",
    )


class ApiKeyOut(Output):
    id: int
    name: str
    prefix: str
    organization_id: int
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    expires_at: datetime


class CreatedApiKeyOut(ApiKeyOut):
    key: str = Field(description="The secret; shown once, store it now")


class ApiKeyRef(Schema):
    id: int


class AcceptInviteIn(Schema):
    token: SecretStr = Field(min_length=10, max_length=200)
    password: SecretStr = Field(min_length=12, max_length=1024, description="At least 12 characters")
    display_name: str | None = Field(default=None, max_length=200)


class ChangePasswordIn(Schema):
    current_password: SecretStr = Field(min_length=1, max_length=1024)
    new_password: SecretStr = Field(min_length=12, max_length=1024, description="At least 12 characters")
