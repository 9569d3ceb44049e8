"""Notifications and subscriptions. A title is written by the platform and holds no PHI (case ids,
dates, counts); notifications are read only by the user they are for."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class Notification(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One notification for one user. `dedupe_key` makes generated notifications idempotent (one
    deadline notification per case x due date); hand-made ones leave it empty."""

    __tablename__ = "notifications"
    __table_args__ = (
        UniqueConstraint("client_id", "dedupe_key", name="uq_notifications_dedupe_key"),
        Index("ix_notifications_client_user", "client_id", "user_id", "id"),
    )

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"), default=None)
    title: Mapped[str] = mapped_column(String(200))
    read_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    dedupe_key: Mapped[str | None] = mapped_column(String(120), default=None)


class NotificationSubscription(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Whether a user gets a kind of notification on a channel. No row: on (the default)."""

    __tablename__ = "notification_subscriptions"
    __table_args__ = (
        UniqueConstraint("client_id", "user_id", "kind", "channel", name="uq_notification_subscriptions_user_kind"),
    )

    user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(40))
    channel: Mapped[str] = mapped_column(String(20), default="in_app")
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
