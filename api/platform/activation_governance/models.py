"""Recordings of a client's go-live gates (append-only; the latest per gate is its state)."""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class ActivationGateRecord(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One recording of one gate: passed or not, the evidence, who recorded it and when."""

    __tablename__ = "activation_gate_records"
    __table_args__ = (Index("ix_activation_gate_records_client_gate", "client_id", "gate", "id"),)

    gate: Mapped[str] = mapped_column(String(40))
    passed: Mapped[bool] = mapped_column(Boolean)
    evidence: Mapped[str] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(String(500), default=None)
    recorded_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
