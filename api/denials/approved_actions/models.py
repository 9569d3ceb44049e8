"""Approved actions and their (single) execution.

An action names its payload by reference (`payload_ref`, e.g. "draft:12" or a packet id) and records
the payload's SHA-256 when it was requested: it runs only while the payload still has that digest.
An execution records what the target was given (the digest, never the content), its answer and the
outcome; `approved_action_executions.action_id` is unique, so an action can never run twice.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class ApprovedAction(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One action on a case, its approval and where it stands."""

    __tablename__ = "approved_actions"
    __table_args__ = (
        Index("ix_approved_actions_client_case", "client_id", "case_id", "id"),
        Index("ix_approved_actions_client_state", "client_id", "state"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(30))  # submit_appeal_packet | send_corrected_claim | portal_message
    payload_ref: Mapped[str] = mapped_column(String(200))
    payload_digest: Mapped[str] = mapped_column(String(64))
    amount: Mapped[Decimal] = mapped_column(Money)
    # set in the requesting transaction, right after the approval is opened on the action's id
    approval_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("approval_requests.id", ondelete="RESTRICT"), default=None
    )
    state: Mapped[str] = mapped_column(String(20), default="pending_approval")
    state_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    requested_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    executed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    executed_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="RESTRICT"), default=None
    )


class ActionExecution(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """The one run of an approved action against a target: request (digest only), response, outcome."""

    __tablename__ = "approved_action_executions"
    __table_args__ = (UniqueConstraint("action_id", name="uq_approved_action_executions_action"),)

    action_id: Mapped[int] = mapped_column(BigId, ForeignKey("approved_actions.id", ondelete="CASCADE"))
    target: Mapped[str] = mapped_column(String(40))
    request: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    response: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    outcome: Mapped[str] = mapped_column(String(12))  # acknowledged | rejected
    tracking_number: Mapped[str | None] = mapped_column(String(40), default=None)
    executed_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
