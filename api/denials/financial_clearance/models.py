"""Clearances: one row per evaluation of a claim before its service (financialClearance.clear).

A clearance is a record of what was known when it was made, never updated: a later check or
authorization makes it stale (financialClearance.status says so) and a new `clear` adds a row. The
blockers and the estimate hold line numbers, codes, ids and amounts only: never the patient.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Index, Numeric, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class FinancialClearance(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One evaluation of a claim: eligibility, authorizations and the patient's estimate."""

    __tablename__ = "financial_clearances"
    __table_args__ = (
        Index("ix_financial_clearances_client_claim", "client_id", "claim_id", "id"),
        Index("ix_financial_clearances_client_status", "client_id", "status", "id"),
    )

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(8))  # cleared | blocked
    service_date: Mapped[date | None] = mapped_column(Date, default=None)
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    eligibility_check_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("eligibility_checks.id", ondelete="SET NULL"), default=None
    )
    eligibility_status: Mapped[str | None] = mapped_column(String(12), default=None)
    authorization_ids: Mapped[list[int]] = mapped_column(JSON, default=list)  # the claim's requests, as read
    blockers: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    allowed_amount: Mapped[Decimal | None] = mapped_column(Numeric(14, 2), default=None)
    patient_estimate: Mapped[Decimal | None] = mapped_column(Numeric(14, 2), default=None)
    estimate_complete: Mapped[bool] = mapped_column(Boolean, default=False)
    estimate: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    evaluated_at: Mapped[datetime] = mapped_column(UtcDateTime())
    evaluated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
