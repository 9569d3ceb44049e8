"""A manager's recovery strategy per payer x denial category."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow


class RecoveryStrategy(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """The action a manager chose for one payer key (upper-case, as the marts' payer_key) x category;
    who set it last and when (every change is also in the audit log, with its before and after)."""

    __tablename__ = "recovery_strategies"
    __table_args__ = (UniqueConstraint("client_id", "payer_key", "category", name="uq_recovery_strategies_cell"),)

    payer_key: Mapped[str] = mapped_column(String(100))
    category: Mapped[str] = mapped_column(String(40))
    action_key: Mapped[str] = mapped_column(String(40))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    updated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
