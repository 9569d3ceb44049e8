"""Users and the credentials of the local identity provider."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, OrgScoped, TenantScoped, UtcDateTime


class User(IdMixin, CreatedAtMixin, Base):
    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    password_hash: Mapped[str | None] = mapped_column(String(200), default=None)
    oidc_subject: Mapped[str | None] = mapped_column(String(500), unique=True, default=None)
    is_platform_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)


class AuthSession(IdMixin, CreatedAtMixin, Base):
    """A login session; only the SHA-256 of the bearer token is stored."""

    __tablename__ = "auth_sessions"

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class ApiKey(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """A long-lived key for systems; acts as its user within one organization."""

    __tablename__ = "api_keys"

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    prefix: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    # Always set: a key stops working at its expiry (defaulted and bounded at creation).
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())


class SmartAccessToken(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A short-lived access token issued to a SMART backend client (`fhirSmartContracts.token`); only the
    SHA-256 of the bearer token is stored. It acts only in its registration's client, only on procedures
    declaring `smart_scopes`, and only within `scopes`."""

    __tablename__ = "smart_access_tokens"

    registration_id: Mapped[int] = mapped_column(BigId, ForeignKey("smart_clients.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(JSON)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())


class Invitation(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """A pending invitation to one organization, for one email, with one role.

    Accepting it creates the membership. A password is set through it only for an account that
    has never had a credential (created by an invitation, no password, no OIDC subject); an
    existing account accepts while signed in as itself.
    """

    __tablename__ = "invitations"

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(20))
    # The clients the membership will reach; None: every client of the organization.
    client_ids: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    # Who invited (None: the platform itself, e.g. a service call); separation of duties reads it.
    invited_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), index=True, default=None
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    accepted_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class LoginThrottle(Base):
    """Failed sign-in attempts per key (a keyed digest of an account's email or a client address).

    In the operational database so every worker process shares it; only digests are stored.
    """

    __tablename__ = "login_throttle"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_failure_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    blocked_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
