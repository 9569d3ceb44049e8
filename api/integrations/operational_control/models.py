"""Automation pauses: the pauses in force (one row per client x scope) and their history."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class AutomationPause(IdMixin, TenantScoped, Base):
    """A pause in force: `scope` is a task name or "*" (every task of the client). Resuming deletes the
    row (the history keeps both moves)."""

    __tablename__ = "automation_pauses"
    __table_args__ = (UniqueConstraint("client_id", "scope", name="uq_automation_pauses_client_scope"),)

    scope: Mapped[str] = mapped_column(String(40))
    reason: Mapped[str] = mapped_column(String(500))
    paused_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    paused_at: Mapped[datetime] = mapped_column(UtcDateTime())


class AutomationPauseEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One pause or resume, with who and why (never updated or deleted)."""

    __tablename__ = "automation_pause_events"
    __table_args__ = (Index("ix_automation_pause_events_client", "client_id", "id"),)

    scope: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(10))  # pause | resume
    reason: Mapped[str] = mapped_column(String(500))
    actor_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
