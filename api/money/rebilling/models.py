"""Rebills: corrected claims (frequency 7 replacement, 8 void) and resubmissions of a claim."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class Rebill(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One corrected claim or resubmission, from draft to the payer's answer.

    ``claim_key`` (CLP01) is an account identifier: stored to link the rebill, never logged or put in
    an error message. ``timely_filing_due_on`` is the limit computed at create; a rebill past it exists
    only with ``timely_filing_override_reason``."""

    __tablename__ = "rebills"
    __table_args__ = (
        Index("ix_rebills_client_state", "client_id", "state"),
        Index("ix_rebills_client_case", "client_id", "case_id"),
    )

    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="SET NULL"), default=None)
    claim_key: Mapped[str] = mapped_column(String(80))
    payer: Mapped[str] = mapped_column(String(200))
    payer_class: Mapped[str | None] = mapped_column(String(30), default=None)
    kind: Mapped[str] = mapped_column(String(20))  # corrected | resubmission
    frequency_code: Mapped[str] = mapped_column(String(1))  # 7 replacement | 8 void
    service_date: Mapped[date] = mapped_column(Date)
    # None: no limit applies (no payer type, e.g. self-pay)
    timely_filing_due_on: Mapped[date | None] = mapped_column(Date, default=None)
    timely_filing_days: Mapped[int | None] = mapped_column(default=None)
    timely_filing_rule: Mapped[str | None] = mapped_column(String(120), default=None)
    timely_filing_override_reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    state: Mapped[str] = mapped_column(String(12), default="draft")
    created_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    state_changed_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    submitted_on: Mapped[date | None] = mapped_column(Date, default=None)
    payer_reference: Mapped[str | None] = mapped_column(String(80), default=None)
