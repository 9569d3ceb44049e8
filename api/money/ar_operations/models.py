"""Follow-up assignments of open A/R claims to team members."""

from __future__ import annotations

from datetime import date

from sqlalchemy import Date, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class FollowUpAssignment(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Who follows up which claim, by when. One current assignment per claim (reassigning updates it)."""

    __tablename__ = "ar_follow_up_assignments"
    __table_args__ = (UniqueConstraint("client_id", "claim_key"),)

    claim_key: Mapped[str] = mapped_column(String(80))
    assignee_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    due_date: Mapped[date | None] = mapped_column(Date, default=None)
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    assigned_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
