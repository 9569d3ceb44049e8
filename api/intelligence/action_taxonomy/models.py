"""A client's own recovery actions (the built-in ones are constants: ``catalogue.BUILT_INS``)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, Boolean, ForeignKey, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow


class RecoveryAction(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One action of the client's vocabulary: its key is unique per client and never a built-in key."""

    __tablename__ = "recovery_actions"
    __table_args__ = (UniqueConstraint("client_id", "key", name="uq_recovery_actions_client_key"),)

    key: Mapped[str] = mapped_column(String(40))
    label: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(30))
    effort_hours: Mapped[Decimal] = mapped_column(Numeric(6, 2))
    applies_to: Mapped[list[str]] = mapped_column(JSON, default=list)  # denial categories
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
