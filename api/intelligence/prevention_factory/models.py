"""Prevention work items and their moves.

Each move is a row of `prevention_work_item_events` (append-only: who, when, from, to, note) rather
than a JSON history column: rows are queryable and indexed, never rewritten, and every database
takes them the same way (the choice of `onboarding_events` and case events).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow


class PreventionWorkItem(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Work that removes a confirmed pattern's root cause (a payer rule, a front-end edit, training)."""

    __tablename__ = "prevention_work_items"
    __table_args__ = (Index("ix_prevention_work_items_client_state", "client_id", "state", "id"),)

    confirmed_pattern_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("confirmed_patterns.id", ondelete="RESTRICT"), index=True
    )
    pattern_key: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(Text, default=None)
    owner_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    due_date: Mapped[date | None] = mapped_column(Date, default=None)
    state: Mapped[str] = mapped_column(String(16), default="open")
    created_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)


class PreventionWorkItemEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One move of a work item (the creation is the move from None to 'open')."""

    __tablename__ = "prevention_work_item_events"
    __table_args__ = (Index("ix_prevention_work_item_events_item", "work_item_id", "id"),)

    work_item_id: Mapped[int] = mapped_column(BigId, ForeignKey("prevention_work_items.id", ondelete="CASCADE"))
    from_state: Mapped[str | None] = mapped_column(String(16), default=None)
    to_state: Mapped[str] = mapped_column(String(16))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    actor_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
