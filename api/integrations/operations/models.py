"""Pipeline runs requested through operations.runPipeline."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime

RUN_STATUSES: tuple[str, ...] = ("queued", "running", "succeeded", "failed")


class PipelineRun(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One requested rebuild of the marts. The pipeline builds every tenant's marts;
    the row belongs to the client that asked, so each tenant sees its own requests."""

    __tablename__ = "pipeline_runs"

    status: Mapped[str] = mapped_column(String(20), default="queued")
    requested_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    job_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("jobs.id", ondelete="SET NULL"), default=None)
    selection: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    dagster_run_id: Mapped[str | None] = mapped_column(String(64), default=None)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    seconds: Mapped[float | None] = mapped_column(Float, default=None)
    snapshot_built_at: Mapped[str | None] = mapped_column(String(40), default=None)
    row_counts: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    failed_steps: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    error: Mapped[str | None] = mapped_column(String(500), default=None)
