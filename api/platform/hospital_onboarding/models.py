"""Onboarding requests of an organization and every move of their lifecycle.

Organization-level rows (`OrgScoped`): a request is made from one of the organization's clients for a
hospital that is not a client yet, and is visible from every client of the organization.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, OrgScoped, UtcDateTime


class OnboardingRequest(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """What the hospital asked for (legal details, volumes, payers, users, connectors, retention), its
    state, who decided it and why, and the client it was provisioned as."""

    __tablename__ = "onboarding_requests"
    __table_args__ = (Index("ix_onboarding_requests_org_state", "organization_id", "state"),)

    hospital_name: Mapped[str] = mapped_column(String(200))
    legal: Mapped[dict[str, Any]] = mapped_column(JSON)
    contact_email: Mapped[str] = mapped_column(String(320))
    expected_volumes: Mapped[dict[str, Any]] = mapped_column(JSON)
    payers: Mapped[list[str]] = mapped_column(JSON)
    requested_users: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    connector_kinds: Mapped[list[str]] = mapped_column(JSON)
    retention_years: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(20))
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    submitted_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    decided_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="RESTRICT"), default=None
    )
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    decision_reason: Mapped[str | None] = mapped_column(Text, default=None)
    provisioned_client_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("clients.id", ondelete="SET NULL"), default=None
    )
    provisioned_by_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="RESTRICT"), default=None
    )
    provisioned_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)


class OnboardingEvent(IdMixin, CreatedAtMixin, OrgScoped, Base):
    """One move of a request: from which state to which, who made it and why (append-only)."""

    __tablename__ = "onboarding_events"
    __table_args__ = (Index("ix_onboarding_events_request", "request_id", "id"),)

    request_id: Mapped[int] = mapped_column(BigId, ForeignKey("onboarding_requests.id", ondelete="CASCADE"))
    from_state: Mapped[str | None] = mapped_column(String(20), default=None)
    to_state: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(Text)
    actor_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
