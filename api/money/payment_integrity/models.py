"""Variance flags raised on claims paid off contract (the variances come from the marts)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY


class VarianceFlag(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A claim whose payment differs from the contract, flagged for follow-up with the payer."""

    __tablename__ = "payment_variance_flags"
    __table_args__ = (UniqueConstraint("client_id", "claim_key", "direction"),)

    claim_key: Mapped[str] = mapped_column(String(80))
    direction: Mapped[str] = mapped_column(String(20))  # underpayment | overpayment
    variance_amount: Mapped[Decimal] = mapped_column(SQLALCHEMY_MONEY)
    reason: Mapped[str] = mapped_column(String(40))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    status: Mapped[str] = mapped_column(String(20), default="open")
    flagged_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
