"""SMART Backend Services client registrations and the assertion ids (`jti`) they have used.

A registration keeps public keys only (a JWK Set, or the https address of one): the private key never
reaches the platform. The access tokens issued to a registration live with the other bearer tokens
(`api.platform.auth.models.SmartAccessToken`), so the principal resolver reads them without importing
this namespace.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class SmartClient(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One registered backend client of one tenant client: its OAuth `client_id`, allowed scopes and keys."""

    __tablename__ = "smart_clients"
    __table_args__ = (UniqueConstraint("smart_client_id"),)

    # The OAuth client_id: generated, public (not a secret), unique across the platform.
    smart_client_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    scopes: Mapped[list[str]] = mapped_column(JSON)
    # Public JWKs only (refused on input otherwise); {"keys": [...]}, or None when jwks_url is set.
    jwks: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    jwks_url: Mapped[str | None] = mapped_column(String(2048), default=None)
    # Keys replaced by rotateKeys, still accepted until retired_keys_until (the grace window).
    retired_jwks: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    retired_keys_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    keys_rotated_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    registered_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class SmartAssertionJti(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A client assertion's `jti`, kept until the assertion's own expiry: the same jti twice is a replay.

    The unique constraint is what refuses two concurrent exchanges of one assertion."""

    __tablename__ = "smart_assertion_jtis"
    __table_args__ = (
        UniqueConstraint("registration_id", "jti"),
        Index("ix_smart_assertion_jtis_expiry", "registration_id", "expires_at"),
    )

    registration_id: Mapped[int] = mapped_column(BigId, ForeignKey("smart_clients.id", ondelete="CASCADE"))
    jti: Mapped[str] = mapped_column(String(255))
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
