"""Trained outcome models: what each version was trained on and how it scored (never the fitted model).

The fitted estimator is NOT stored: unpickling a blob from the database would run whatever code it names
(unsafe deserialisation). A version is re-fitted deterministically from the same outcomes when a process
needs it (``service.trained``), and its fingerprint proves they are the same.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, TenantScoped, UtcDateTime


class OutcomeModel(IdMixin, TenantScoped, Base):
    """One trained version of a client's outcome model (numbered 1, 2, ... per client)."""

    __tablename__ = "outcome_models"
    __table_args__ = (UniqueConstraint("client_id", "version"),)

    version: Mapped[int] = mapped_column(Integer)
    fingerprint: Mapped[str] = mapped_column(String(16))
    trained_at: Mapped[datetime] = mapped_column(UtcDateTime())
    trained_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    snapshot_built_at: Mapped[datetime] = mapped_column(UtcDateTime())  # the guard's snapshot (its data build)
    outcomes: Mapped[int] = mapped_column(Integer)  # trained + held out
    held_out: Mapped[int] = mapped_column(Integer)
    split_date: Mapped[date] = mapped_column(Date)
    # What to gather again to re-fit: outcomes recorded up to this id, minus the guard's exclusions.
    recorded_through: Mapped[int] = mapped_column(BigId)
    excluded_case_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    excluded_outcomes: Mapped[int] = mapped_column(Integer, default=0)
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON)  # {"model", "prior", "brierDifference"}
    beats_prior: Mapped[bool] = mapped_column(Boolean)
    verdict: Mapped[str] = mapped_column(String(1000))
    calibrated: Mapped[bool] = mapped_column(Boolean)
    calibration_note: Mapped[str] = mapped_column(String(500))
    libraries: Mapped[dict[str, str]] = mapped_column(JSON)
