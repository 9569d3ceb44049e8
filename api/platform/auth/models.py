"""Users and the credentials of the local identity provider."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, OrgScoped, UtcDateTime


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


class Invitation(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """A pending invitation; accepting it sets the invitee's password."""

    __tablename__ = "invitations"

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    accepted_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
