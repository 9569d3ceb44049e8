"""Appeal outcomes: one payer decision on one appeal level of a denial case.

``payer``, ``denial_category`` and ``carc`` are copied from the case when the decision is recorded:
the overturn statistics count each decision in the cell the case was in when it was decided, even if
the case is reclassified later. ``payer_reference`` is the payer's own reference for the decision
(an identifier: returned to members, never audited).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Date, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class AppealOutcome(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A payer's decision on an appeal: won, partially won, lost or withdrawn, and the money it recovered.
    Never updated or deleted; `created_at` and `recorded_by_user_id` say when and who."""

    __tablename__ = "appeal_outcomes"
    __table_args__ = (
        Index("ix_appeal_outcomes_client_case", "client_id", "case_id", "id"),
        Index("ix_appeal_outcomes_client_cell", "client_id", "denial_category", "payer", "carc"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    level: Mapped[int] = mapped_column(Integer)  # 1 = first-level appeal, 2 = second, 3 = external review ...
    decision: Mapped[str] = mapped_column(String(16))  # won | partially_won | lost | withdrawn
    amount_recovered: Mapped[Decimal] = mapped_column(Money)
    decided_on: Mapped[date] = mapped_column(Date)
    payer_reference: Mapped[str | None] = mapped_column(String(80), default=None)
    recorded_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    case_state_before: Mapped[str] = mapped_column(String(20))
    case_state_after: Mapped[str] = mapped_column(String(20))
    # the case's cell when decided (see the module docstring)
    payer: Mapped[str] = mapped_column(String(200))
    denial_category: Mapped[str | None] = mapped_column(String(40), default=None)
    carc: Mapped[str | None] = mapped_column(String(10), default=None)
