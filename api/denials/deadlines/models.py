"""Stored deadlines of denial cases, with their overrides."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow


class CaseDeadline(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One deadline of one case and level. ``due_on`` is the date that counts: the override when
    there is one, else ``computed_due_on`` (what the rule gives from ``basis_date``)."""

    __tablename__ = "case_deadlines"
    __table_args__ = (
        UniqueConstraint("case_id", "level", name="uq_case_deadlines_case_level"),
        Index("ix_case_deadlines_client_status_due", "client_id", "status", "due_on"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    level: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))  # appeal | timely_filing
    basis: Mapped[str] = mapped_column(String(60))  # what basis_date is (the rule's basis column)
    basis_date: Mapped[date] = mapped_column(Date)
    computed_due_on: Mapped[date] = mapped_column(Date)
    due_on: Mapped[date] = mapped_column(Date)
    rule_reference: Mapped[str] = mapped_column(String(120))
    limit_days: Mapped[int] = mapped_column()
    business_days: Mapped[bool] = mapped_column(Boolean, default=False)
    is_default_rule: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(10), default="open")  # open | met | missed
    overridden_due_on: Mapped[date | None] = mapped_column(Date, default=None)
    override_reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    overridden_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    overridden_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
