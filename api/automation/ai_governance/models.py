"""Per-client AI task enablement. No row: the task is enabled (the default)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, TenantScoped, UtcDateTime


class AiTaskSetting(IdMixin, TenantScoped, Base):
    """Whether one AI task may run for the client, who decided and why."""

    __tablename__ = "ai_task_settings"
    __table_args__ = (UniqueConstraint("client_id", "task", name="uq_ai_task_settings_client_task"),)

    task: Mapped[str] = mapped_column(String(40))
    enabled: Mapped[bool] = mapped_column(Boolean)
    reason: Mapped[str] = mapped_column(String(500))
    updated_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
