"""A person's review of a queued AI execution: accept or reject, who and why. One per execution.

The reason is written by a member for members of the client; the audit gets ids and the decision."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class AiExecutionReview(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """The decision a person took on one queued execution."""

    __tablename__ = "ai_execution_reviews"
    __table_args__ = (UniqueConstraint("execution_id", name="uq_ai_execution_reviews_execution"),)

    execution_id: Mapped[int] = mapped_column(BigId, ForeignKey("ai_executions.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(String(8))  # accept | reject
    reason: Mapped[str] = mapped_column(String(500))
    reviewer_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"))
