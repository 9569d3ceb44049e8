"""Payer interactions. `summary` and `next_step` are free text that may hold PHI: returned to members
of the client, never logged or audited. `claim_key` is an account identifier: stored to link the
interaction to the ledger, never put in a message or the audit."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class PayerInteraction(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One call, portal check or piece of correspondence with a payer, on a case or a claim."""

    __tablename__ = "payer_interactions"
    __table_args__ = (
        Index("ix_payer_interactions_client_case", "client_id", "case_id", "occurred_at"),
        Index("ix_payer_interactions_client_payer", "client_id", "payer"),
        Index("ix_payer_interactions_client_occurred", "client_id", "occurred_at"),
    )

    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"), default=None)
    claim_key: Mapped[str | None] = mapped_column(String(80), default=None)
    channel: Mapped[str] = mapped_column(String(10))  # phone | portal | fax | mail | email
    direction: Mapped[str] = mapped_column(String(10))  # outbound | inbound
    logged_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    occurred_at: Mapped[datetime] = mapped_column(UtcDateTime())
    payer: Mapped[str] = mapped_column(String(200))
    payer_representative: Mapped[str | None] = mapped_column(String(200), default=None)
    reference_number: Mapped[str | None] = mapped_column(String(80), default=None)
    summary: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(30))
    next_step: Mapped[str | None] = mapped_column(String(500), default=None)
    next_step_on: Mapped[date | None] = mapped_column(Date, default=None)
