"""Delegated payer calls, the provider events recorded on them, and simulated calls.

`call_data` is the minimum the call needs (`call_data.py`: claim numbers, date of service, billed
amount, the hospital's NPI/TIN; never patient identifiers). Transcripts are stored redacted
(`transcript.py`): a patient's name, date of birth or member id said by the payer's side becomes a
marker. Neither is logged or audited (the audit gets ids, goal and states).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class VoiceDelegation(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One payer call delegated to the voice agent for a denial case, and what it learned."""

    __tablename__ = "voice_delegations"
    __table_args__ = (
        Index("ix_voice_delegations_client_case", "client_id", "case_id", "id"),
        Index("ix_voice_delegations_client_state", "client_id", "state"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    goal: Mapped[str] = mapped_column(String(20))  # claim_status | appeal_status | reopening_request
    state: Mapped[str] = mapped_column(String(12), default="created")
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    state_history: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    call_data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    opening_script: Mapped[str] = mapped_column(Text)
    placed_by: Mapped[str | None] = mapped_column(String(12), default=None)  # simulation | provider
    transcript: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)  # redacted turns
    timeline: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    status: Mapped[str | None] = mapped_column(String(40), default=None)
    interaction_outcome: Mapped[str | None] = mapped_column(String(30), default=None)
    reference_number: Mapped[str | None] = mapped_column(String(80), default=None)
    next_step: Mapped[str | None] = mapped_column(String(500), default=None)
    failure_mode: Mapped[str | None] = mapped_column(String(40), default=None)
    payer_interaction_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("payer_interactions.id", ondelete="SET NULL"), default=None
    )
    created_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class VoiceDelegationEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A telephony provider's event, kept by its id so a redelivery is recognised (never updated)."""

    __tablename__ = "voice_delegation_events"
    __table_args__ = (
        UniqueConstraint("client_id", "provider_event_id", name="uq_voice_delegation_events_provider_id"),
        Index("ix_voice_delegation_events_delegation", "delegation_id", "id"),
    )

    delegation_id: Mapped[int] = mapped_column(BigId, ForeignKey("voice_delegations.id", ondelete="CASCADE"))
    provider_event_id: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(20))
    at_seconds: Mapped[float] = mapped_column(Float)
    recorded_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class VoiceSimulation(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A delegated call played against the simulated payer line (one per delegation)."""

    __tablename__ = "voice_simulations"
    __table_args__ = (
        UniqueConstraint("client_id", "delegation_id", name="uq_voice_simulations_delegation"),
        Index("ix_voice_simulations_client_case", "client_id", "case_id", "id"),
    )

    delegation_id: Mapped[int] = mapped_column(BigId, ForeignKey("voice_delegations.id", ondelete="CASCADE"))
    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    seed: Mapped[int] = mapped_column(BigId)
    failure_mode: Mapped[str] = mapped_column(String(40))
    final_state: Mapped[str] = mapped_column(String(40))
    outcome: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    transcript: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)  # redacted turns
    timeline: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    duration_seconds: Mapped[float] = mapped_column(Float)
    steps: Mapped[int] = mapped_column(Integer)
    payer_interaction_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("payer_interactions.id", ondelete="SET NULL"), default=None
    )
    created_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
