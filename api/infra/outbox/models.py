"""The `outbox_messages` table: one row per mail to deliver, written in the transaction that decides to send it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, UtcDateTime

OUTBOX_STATUSES: tuple[str, ...] = ("pending", "sending", "sent")


class OutboxMessage(IdMixin, CreatedAtMixin, Base):
    """A mail waiting for (or past) delivery.

    `body` may hold a secret meant for the recipient only (an invitation token): it is kept only until
    the mail is delivered, then cleared. Not tenant-scoped: delivery is the platform's work, and no
    procedure reads this table.
    """

    __tablename__ = "outbox_messages"
    __table_args__ = (Index("ix_outbox_messages_status", "status", "id"),)

    # Plain nullable reference (like jobs): which organization the mail is about, for the operator.
    organization_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("organizations.id", ondelete="CASCADE"), index=True, default=None
    )
    kind: Mapped[str] = mapped_column(String(40))  # e.g. "invitation"
    recipient: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str | None] = mapped_column(Text, default=None)
    status: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    claimed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    transport: Mapped[str | None] = mapped_column(String(20), default=None)  # smtp | file
    # The exception type of the last failed attempt (never its message: it may echo the address).
    last_error: Mapped[str | None] = mapped_column(String(200), default=None)
