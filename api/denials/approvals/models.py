"""Approval requests, the decisions on them, and each client's approval policy.

An approval request is bound to its subject's content: `subject_digest` is the SHA-256 of the draft
version (or of the action's payload) it was requested on. If the subject's current digest differs,
the approval is void. `conflicted_user_ids` are the people who may not decide it (the requester and
the subject's authors). Reasons are shown to members; the audit gets ids, digests and states.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class ApprovalPolicy(IdMixin, TenantScoped, Base):
    """One client's approval policy: above `two_approvers_above` two distinct approvers are needed;
    an approval request expires `expires_after_hours` after it is made."""

    __tablename__ = "approval_policies"
    __table_args__ = (UniqueConstraint("client_id", name="uq_approval_policies_client"),)

    two_approvers_above: Mapped[Decimal | None] = mapped_column(Money, default=None)
    expires_after_hours: Mapped[int] = mapped_column(Integer)
    updated_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class ApprovalRequest(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A request for approval of one subject (a draft version or an approved action)."""

    __tablename__ = "approval_requests"
    __table_args__ = (
        Index("ix_approval_requests_client_subject", "client_id", "subject_type", "subject_id"),
        Index("ix_approval_requests_client_state", "client_id", "state", "expires_at"),
        Index("ix_approval_requests_client_case", "client_id", "case_id", "id"),
    )

    subject_type: Mapped[str] = mapped_column(String(10))  # draft | action
    subject_id: Mapped[int] = mapped_column(BigId)
    subject_version: Mapped[int | None] = mapped_column(Integer, default=None)  # the draft version
    subject_digest: Mapped[str] = mapped_column(String(64))
    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    amount: Mapped[Decimal] = mapped_column(Money)
    required_approvals: Mapped[int] = mapped_column(Integer)
    approvals_count: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(12), default="pending")
    state_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    requested_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    conflicted_user_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class ApprovalDecision(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One approver's decision with its reason; one per approver and request."""

    __tablename__ = "approval_decisions"
    __table_args__ = (UniqueConstraint("approval_id", "approver_user_id", name="uq_approval_decisions_approver"),)

    approval_id: Mapped[int] = mapped_column(BigId, ForeignKey("approval_requests.id", ondelete="CASCADE"), index=True)
    approver_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    decision: Mapped[str] = mapped_column(String(8))  # approve | reject
    reason: Mapped[str] = mapped_column(String(1000))
