"""Acknowledgements of payer-change alerts (the alerts themselves live in the marts)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class AlertAcknowledgement(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Someone looked at an alert; `alert_key` is the mart's stable key of that alert."""

    __tablename__ = "payer_alert_acknowledgements"
    __table_args__ = (UniqueConstraint("client_id", "alert_key"),)

    alert_key: Mapped[str] = mapped_column(String(300))
    acknowledged_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
