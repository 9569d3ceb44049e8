"""Digital twins of a client's recovery process (calibration, backtest, starting backlog) and their runs."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class RecoveryTwin(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One built twin: the window it was calibrated on, its parameters with their intervals, the backtest on
    the window's last quarter (its stated error) and the backlog it starts from. Never updated."""

    __tablename__ = "recovery_twins"
    __table_args__ = (Index("ix_recovery_twins_client_id_desc", "client_id", "id"),)

    built_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    as_of: Mapped[date] = mapped_column(Date)
    window_from: Mapped[date] = mapped_column(Date)
    cases: Mapped[int] = mapped_column(Integer)  # cases read from the window
    seed: Mapped[int] = mapped_column(BigId)  # the backtest's
    calibration: Mapped[dict[str, Any]] = mapped_column(JSON)
    backtest: Mapped[dict[str, Any]] = mapped_column(JSON)
    start_backlog: Mapped[list[dict[str, Any]]] = mapped_column(JSON)  # [{payer, category, amount, ageDays, dueInDays}]


class RecoveryTwinRun(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One forward run of a twin under a scenario, with its seed and forecast. Never updated."""

    __tablename__ = "recovery_twin_runs"
    __table_args__ = (Index("ix_recovery_twin_runs_client_twin", "client_id", "twin_id", "id"),)

    twin_id: Mapped[int] = mapped_column(BigId, ForeignKey("recovery_twins.id", ondelete="CASCADE"))
    ran_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    seed: Mapped[int] = mapped_column(BigId)
    horizon_weeks: Mapped[int] = mapped_column(Integer)
    replications: Mapped[int] = mapped_column(Integer)
    scenario: Mapped[dict[str, Any]] = mapped_column(JSON)
    forecast: Mapped[dict[str, Any]] = mapped_column(JSON)
    ran_on: Mapped[datetime] = mapped_column(UtcDateTime())
