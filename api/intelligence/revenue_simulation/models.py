"""Stored what-if runs: the scenario, the seed and the snapshot it ran on, and the answer it gave."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class RevenueSimulation(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One simulation of a client (its answer stored whole, so `get` answers it again identically)."""

    __tablename__ = "revenue_simulations"
    __table_args__ = (Index("ix_revenue_simulations_client", "client_id", "id"),)

    created_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    kind: Mapped[str] = mapped_column(String(16))  # prevention | strategy | rule
    seed: Mapped[int] = mapped_column(BigInteger)
    replications: Mapped[int] = mapped_column(Integer)
    snapshot_id: Mapped[str] = mapped_column(String(200))
    snapshot_built_at: Mapped[datetime] = mapped_column(UtcDateTime())
    snapshot_run_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    scenario: Mapped[dict[str, Any]] = mapped_column(JSON)  # the input's scenario, as given (wire names)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)  # the answer's figures (wire names, money as text)
