"""Autonomy policies (versioned), AI executions and their labelled evaluations.

An execution's output may quote claim facts (a drafted letter names the claim and payer) and redacted
evidence text: it is returned to members of the client and never audited (the audit gets the ids, the
decision and digests)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class AutonomyPolicy(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One version of a client's autonomy policy for one task. Never updated: a change is a new
    version; the highest version is in force."""

    __tablename__ = "ai_autonomy_policies"
    __table_args__ = (UniqueConstraint("client_id", "task", "version", name="uq_ai_autonomy_policies_version"),)

    task: Mapped[str] = mapped_column(String(40))
    version: Mapped[int] = mapped_column(Integer)
    mode: Mapped[str] = mapped_column(String(24))  # off | suggest_only | auto_below_threshold
    min_confidence: Mapped[float] = mapped_column(Float)
    max_amount: Mapped[Decimal] = mapped_column(Money)
    min_accuracy: Mapped[float] = mapped_column(Float)
    min_samples: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(500))
    created_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )


class AiExecution(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One run of a task on a case: the inputs' digests, the result, the decision with its reasons and
    context, the policy version in force, and the keyed proof digest computed when it was stored."""

    __tablename__ = "ai_executions"
    __table_args__ = (
        Index("ix_ai_executions_client_case", "client_id", "case_id", "id"),
        Index("ix_ai_executions_client_task", "client_id", "task", "id"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    task: Mapped[str] = mapped_column(String(40))
    provider: Mapped[str] = mapped_column(String(40))
    input_digests: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # the knowledgeControl versions read: [{id, kind, key, version, sha256}]
    knowledge_versions: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list, server_default="[]")
    label: Mapped[str] = mapped_column(String(80))
    output: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)  # None when refused
    output_digest: Mapped[str] = mapped_column(String(64))
    confidence: Mapped[float] = mapped_column(Float)
    amount_at_stake: Mapped[Decimal] = mapped_column(Money)
    decision: Mapped[str] = mapped_column(String(10))  # applied | queued | refused
    reasons: Mapped[list[str]] = mapped_column(JSON, default=list)
    context: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # enablement, pauses, evaluation
    policy_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("ai_autonomy_policies.id"), default=None)
    policy_version: Mapped[int | None] = mapped_column(Integer, default=None)
    # applied | queued (for a person) | refused; a queued one becomes accepted | rejected (agentWorkbench)
    state: Mapped[str] = mapped_column(String(10))
    effect: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # what applying changed
    proof_digest: Mapped[str] = mapped_column(String(64))
    requested_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )


class AiEvaluation(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One labelled result: what the task predicted, what was true, and the confidence it had."""

    __tablename__ = "ai_evaluations"
    __table_args__ = (
        Index("ix_ai_evaluations_client_task", "client_id", "task", "id"),
        UniqueConstraint("execution_id", name="uq_ai_evaluations_execution"),
    )

    task: Mapped[str] = mapped_column(String(40))
    execution_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("ai_executions.id", ondelete="SET NULL"), default=None
    )
    predicted: Mapped[str] = mapped_column(String(80))
    actual: Mapped[str] = mapped_column(String(80))
    confidence: Mapped[float] = mapped_column(Float)
    recorded_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
