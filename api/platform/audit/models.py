"""The append-only, hash-chained audit log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, UtcDateTime


class AuditEvent(IdMixin, Base):
    """One mutation. Deliberately not OrgScoped: auditors of an organization read
    it through `audit.*`, which filters on the chain scope explicitly."""

    __tablename__ = "audit_events"
    __table_args__ = (
        UniqueConstraint("scope", "seq"),
        Index("ix_audit_events_org_time", "organization_id", "created_at"),
    )

    scope: Mapped[str] = mapped_column(String(40))  # "org:<id>" or "platform"
    seq: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"))
    organization_id: Mapped[int | None] = mapped_column(BigId, default=None)
    client_id: Mapped[int | None] = mapped_column(BigId, default=None)
    actor_user_id: Mapped[int | None] = mapped_column(BigId, default=None)
    actor_kind: Mapped[str] = mapped_column(String(20))  # session | api_key | oidc | system | anonymous
    procedure: Mapped[str] = mapped_column(String(120))
    target_type: Mapped[str | None] = mapped_column(String(80), default=None)
    target_id: Mapped[str | None] = mapped_column(String(80), default=None)
    input_digest: Mapped[str] = mapped_column(String(64))
    before_digest: Mapped[str | None] = mapped_column(String(64), default=None)
    after_digest: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))


class AuditHead(Base):
    """The tip of each chain; updating it first serialises concurrent appends."""

    __tablename__ = "audit_heads"

    scope: Mapped[str] = mapped_column(String(40), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger().with_variant(Integer(), "sqlite"), default=0)
    last_hash: Mapped[str] = mapped_column(String(64))
