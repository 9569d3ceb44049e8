"""Revenue-cycle costs recorded by a manager (issue 24): the numerator of HFMA's MAP Key "Cost to
Collect" (fct_kpis_monthly.cost_to_collect_amount), which stays null for a month without any."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class CollectionCost(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One recorded cost of the revenue cycle for a month (staff, vendors, clearinghouse, systems).
    A month's cost to collect is the sum of its records; a correction is a negative record."""

    __tablename__ = "collection_costs"

    month: Mapped[date] = mapped_column(Date, index=True)  # the month's first day
    amount: Mapped[Decimal] = mapped_column(Money)
    category: Mapped[str] = mapped_column(String(40))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    recorded_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
