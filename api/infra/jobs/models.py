"""The `jobs` table: one row per background job, its state and its bookkeeping."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, UtcDateTime, utcnow

JOB_STATUSES: tuple[str, ...] = ("queued", "running", "succeeded", "failed", "dead")


class Job(IdMixin, CreatedAtMixin, Base):
    """A unit of background work. `payload` and `result` hold ids only, never PHI."""

    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status_run_after", "status", "run_after"),)

    kind: Mapped[str] = mapped_column(String(100), index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(20), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=5)
    run_after: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    locked_by: Mapped[str | None] = mapped_column(String(200), default=None)
    locked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    # Exception type plus a message the platform wrote itself (see queue.describe_error).
    last_error: Mapped[str | None] = mapped_column(String(500), default=None)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    # Plain nullable reference (not OrgScoped): platform jobs belong to no tenant.
    organization_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("organizations.id", ondelete="CASCADE"), index=True, default=None
    )
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
