"""Outbound messages on denial cases. The body may hold PHI: it is returned to members of the client
and never logged or audited (the audit gets `content_digest`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class OutboundMessage(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One letter, fax or portal message: what was sent (and its digest), through which transport, and
    every status it went through (`status_history`, oldest first)."""

    __tablename__ = "comms_messages"
    __table_args__ = (
        Index("ix_comms_messages_client_case", "client_id", "case_id", "id"),
        Index("ix_comms_messages_client_status", "client_id", "status"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(10))  # letter | fax | portal
    transport: Mapped[str] = mapped_column(String(20))  # sandbox (the only one configured)
    recipient: Mapped[str] = mapped_column(String(500))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    content_digest: Mapped[str] = mapped_column(String(64))
    content_bytes: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="queued")
    status_history: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    transport_reference: Mapped[str | None] = mapped_column(String(80), default=None)
    transport_request: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    transport_response: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    failure_reason: Mapped[str | None] = mapped_column(String(200), default=None)
    sent_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    failed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
