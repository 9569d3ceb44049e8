"""Billing state: received events (idempotency by event id), subscriptions and invoices."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, IdMixin, OrgScoped, UtcDateTime, utcnow


class BillingEvent(IdMixin, OrgScoped, Base):
    """One received webhook event. `event_id` is unique: a replay cannot be stored twice.

    OrgScoped so tenant sessions only ever see their own events; the column is
    nullable here because an event naming an unknown organization is kept
    (status `unmatched`) for the billing team to fix, and no tenant sees it.
    """

    __tablename__ = "billing_events"
    __table_args__ = (UniqueConstraint("event_id"),)

    # Narrows OrgScoped's required organization on purpose (see the docstring): mypy cannot know the
    # mixin is kept only for the tenant filter, so the override is declared here, once.
    organization_id: Mapped[int | None] = mapped_column(  # type: ignore[assignment]
        BigId, ForeignKey("organizations.id", ondelete="SET NULL"), index=True, nullable=True
    )
    event_id: Mapped[str] = mapped_column(String(120))
    type: Mapped[str] = mapped_column(String(50))
    # applied | unmatched (unknown organization) | stale (older than the state it would change)
    status: Mapped[str] = mapped_column(String(20))
    event_created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    received_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    payload_sha256: Mapped[str] = mapped_column(String(64))


class Subscription(IdMixin, OrgScoped, Base):
    """The organization's platform subscription (one per organization)."""

    __tablename__ = "subscriptions"
    __table_args__ = (UniqueConstraint("organization_id"),)

    plan: Mapped[str] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(40))
    current_period_end: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # The provider time of the event that set this state: older events do not overwrite it.
    last_event_at: Mapped[datetime] = mapped_column(UtcDateTime())
    last_event_id: Mapped[str] = mapped_column(String(120))


class Invoice(IdMixin, OrgScoped, Base):
    """An invoice of the organization's subscription, as the billing provider last reported it."""

    __tablename__ = "invoices"
    __table_args__ = (UniqueConstraint("invoice_id"),)

    invoice_id: Mapped[str] = mapped_column(String(100))
    # Integer cents: exact on both backends (SQLite has no exact decimal storage).
    amount_due_cents: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(40))
    period_start: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    period_end: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    last_event_at: Mapped[datetime] = mapped_column(UtcDateTime())

    @property
    def amount_due(self) -> Decimal:
        return (Decimal(self.amount_due_cents) / 100).quantize(Decimal("0.01"))
