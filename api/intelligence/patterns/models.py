"""Confirmed patterns: a person of the client judged a mined pattern a real root cause.

The pattern itself lives in the marts (recomputed from every snapshot); the row keeps what it was
when confirmed (window, counts, rate, q-value, the snapshot's build time), so later snapshots can be
compared with the evidence the confirmation rested on.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class ConfirmedPattern(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One confirmation per client and pattern key (`mining.pattern_key`: the five dimensions' digest)."""

    __tablename__ = "confirmed_patterns"
    __table_args__ = (UniqueConstraint("client_id", "pattern_key"),)

    pattern_key: Mapped[str] = mapped_column(String(16))
    payer_key: Mapped[str | None] = mapped_column(String(200), default=None)
    denial_category: Mapped[str | None] = mapped_column(String(100), default=None)
    carc: Mapped[str | None] = mapped_column(String(20), default=None)
    service_line: Mapped[str | None] = mapped_column(String(200), default=None)
    facility: Mapped[str | None] = mapped_column(String(200), default=None)
    from_month: Mapped[date] = mapped_column(Date)
    to_month: Mapped[date] = mapped_column(Date)
    claims: Mapped[int] = mapped_column(Integer)
    denied: Mapped[int] = mapped_column(Integer)
    rate: Mapped[float] = mapped_column(Float)
    q_value: Mapped[float] = mapped_column(Float)
    snapshot_built_at: Mapped[datetime] = mapped_column(UtcDateTime())
    confirmed_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
