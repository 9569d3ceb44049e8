"""Evidence records: one row per calculation of an intervention's effect (kept: each is a dated reading of
one snapshot, so a later calculation never rewrites an earlier one)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, TenantScoped, UtcDateTime


class InterventionEvidence(IdMixin, TenantScoped, Base):
    """The counts of the four cells (events/trials), the treated and comparison before/after changes with
    their intervals (`treated`, `control`: estimators.Change as JSON), the difference-in-differences
    (`did_*`, None without a comparison group or with an empty cell) and the plain statement."""

    __tablename__ = "intervention_evidence"
    __table_args__ = (
        Index("ix_intervention_evidence_client_intervention", "client_id", "intervention_id", "id"),
        Index("ix_intervention_evidence_client_pattern", "client_id", "pattern_key", "id"),
    )

    intervention_id: Mapped[int] = mapped_column(BigId, ForeignKey("interventions.id", ondelete="CASCADE"))
    pattern_key: Mapped[str] = mapped_column(String(16))
    action_key: Mapped[str] = mapped_column(String(64))
    scope: Mapped[dict[str, Any]] = mapped_column(JSON)
    start_date: Mapped[date] = mapped_column(Date)
    months_before: Mapped[int] = mapped_column(Integer)
    months_after: Mapped[int] = mapped_column(Integer)
    before_from: Mapped[date] = mapped_column(Date)  # first month of "before"
    after_until: Mapped[date] = mapped_column(Date)  # first month past "after"
    comparison_payer_class: Mapped[str | None] = mapped_column(String(100), default=None)
    has_comparison: Mapped[bool] = mapped_column(Boolean)
    treated_before_events: Mapped[int] = mapped_column(Integer)
    treated_before_trials: Mapped[int] = mapped_column(Integer)
    treated_after_events: Mapped[int] = mapped_column(Integer)
    treated_after_trials: Mapped[int] = mapped_column(Integer)
    control_before_events: Mapped[int | None] = mapped_column(Integer, default=None)
    control_before_trials: Mapped[int | None] = mapped_column(Integer, default=None)
    control_after_events: Mapped[int | None] = mapped_column(Integer, default=None)
    control_after_trials: Mapped[int | None] = mapped_column(Integer, default=None)
    treated: Mapped[dict[str, Any]] = mapped_column(JSON)
    control: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    did_estimate: Mapped[float | None] = mapped_column(Float, default=None)
    did_standard_error: Mapped[float | None] = mapped_column(Float, default=None)
    did_ci_low: Mapped[float | None] = mapped_column(Float, default=None)
    did_ci_high: Mapped[float | None] = mapped_column(Float, default=None)
    did_z: Mapped[float | None] = mapped_column(Float, default=None)
    did_p_value: Mapped[float | None] = mapped_column(Float, default=None)
    did_n_total: Mapped[int | None] = mapped_column(Integer, default=None)
    min_trials: Mapped[int] = mapped_column(Integer)
    significant: Mapped[bool] = mapped_column(Boolean)
    enough_trials: Mapped[bool] = mapped_column(Boolean)
    statement: Mapped[str] = mapped_column(Text)
    snapshot_built_at: Mapped[datetime] = mapped_column(UtcDateTime())
    computed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    computed_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
