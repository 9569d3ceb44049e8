"""Evidence syntheses: one row per pooling of the latest evidence of every intervention against a pattern
with an action (kept: each is a dated reading, a later pooling never rewrites an earlier one), and the
clients whose evidence it pooled (a member may read a synthesis only when they reach every one of them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, TenantScoped, UtcDateTime


class EvidenceSynthesis(IdMixin, TenantScoped, Base):
    """The studies pooled (`studies`: evidence id, intervention id, client id, effect, standard error, n per
    study), the fixed- and random-effects estimates with standard errors and 95% intervals, the
    heterogeneity (tau², Cochran's Q with its df and p-value, I²; None with one study) and the statement."""

    __tablename__ = "evidence_syntheses"
    __table_args__ = (
        Index("ix_evidence_syntheses_client_pattern", "client_id", "pattern_key", "id"),
        Index("ix_evidence_syntheses_client_action", "client_id", "action_key", "id"),
    )

    pattern_key: Mapped[str] = mapped_column(String(16))
    action_key: Mapped[str] = mapped_column(String(64))
    organization_wide: Mapped[bool] = mapped_column(Boolean)  # pooled over every client of the organization
    studies: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    excluded: Mapped[int] = mapped_column(Integer)  # interventions whose latest record has no usable estimate
    fixed_effect: Mapped[float] = mapped_column(Float)
    fixed_standard_error: Mapped[float] = mapped_column(Float)
    fixed_ci_low: Mapped[float] = mapped_column(Float)
    fixed_ci_high: Mapped[float] = mapped_column(Float)
    random_effect: Mapped[float] = mapped_column(Float)
    random_standard_error: Mapped[float] = mapped_column(Float)
    random_ci_low: Mapped[float] = mapped_column(Float)
    random_ci_high: Mapped[float] = mapped_column(Float)
    tau2: Mapped[float | None] = mapped_column(Float, default=None)
    q: Mapped[float | None] = mapped_column(Float, default=None)
    q_df: Mapped[int | None] = mapped_column(Integer, default=None)
    q_p_value: Mapped[float | None] = mapped_column(Float, default=None)
    i2: Mapped[float | None] = mapped_column(Float, default=None)
    n_studies: Mapped[int] = mapped_column(Integer)
    n_total: Mapped[int] = mapped_column(Integer)
    statement: Mapped[str] = mapped_column(Text)
    computed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    computed_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class EvidenceSynthesisClient(IdMixin, TenantScoped, Base):
    """One client whose evidence a synthesis pooled (`client_id` is the synthesis's owner, as on the
    synthesis; `study_client_id` the client the study came from)."""

    __tablename__ = "evidence_synthesis_clients"
    __table_args__ = (UniqueConstraint("synthesis_id", "study_client_id"),)

    synthesis_id: Mapped[int] = mapped_column(BigId, ForeignKey("evidence_syntheses.id", ondelete="CASCADE"))
    study_client_id: Mapped[int] = mapped_column(BigId, ForeignKey("clients.id", ondelete="CASCADE"))
