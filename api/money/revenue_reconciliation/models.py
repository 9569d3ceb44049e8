"""Resolutions of cash variances between a payment (ERA check) and the cash posted to claims."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY


class VarianceResolution(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """How a remittance's variance was explained; `remittance_key` is the mart key."""

    __tablename__ = "revenue_variance_resolutions"
    __table_args__ = (UniqueConstraint("client_id", "remittance_key"),)

    remittance_key: Mapped[str] = mapped_column(String(200))
    variance_amount: Mapped[Decimal] = mapped_column(SQLALCHEMY_MONEY)
    resolution: Mapped[str] = mapped_column(String(40))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    resolved_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
