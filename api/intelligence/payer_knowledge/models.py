"""Curated payer facts, one row per version (payerKnowledge.upsertFact)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import Date, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class PayerFact(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One version of one fact about a payer: what (``kind``, ``label``: e.g. phone "provider services"),
    the value, where it comes from (a URL or a document citation) and the days it is in force. A newer
    version closes this one (``effective_to``); rows are never deleted."""

    __tablename__ = "payer_facts"
    __table_args__ = (
        UniqueConstraint("client_id", "payer_key", "kind", "label", "effective_from", name="uq_payer_facts_version"),
        Index("ix_payer_facts_client_payer", "client_id", "payer_key", "kind", "label"),
    )

    # the payer id as the claims and remittances name it (835 N1*PR N104 / REF*2U), upper-cased
    payer_key: Mapped[str] = mapped_column(String(80))
    payer_name: Mapped[str | None] = mapped_column(String(200), default=None)
    kind: Mapped[str] = mapped_column(String(20))
    label: Mapped[str] = mapped_column(String(80), default="")  # "": the kind's one fact
    value: Mapped[str] = mapped_column(String(2000))
    source: Mapped[str] = mapped_column(String(500))
    effective_from: Mapped[date] = mapped_column(Date)
    effective_to: Mapped[date | None] = mapped_column(Date, default=None)
    recorded_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
