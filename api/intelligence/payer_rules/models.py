"""Proposed changes of a client's payer rules (payerRules.upsert proposes, payerRules.decide applies), and
the client's frequency limits.

The limits live with the deadline scheduler that reads them (``deadlines.models.PayerRule``), the
authorization requirements with priorAuthorization; ``payer_rule_changes`` holds what a person asked to
change and who decided, so no rule changes on one person's word. The frequency limits are payerRules' own
(``payer_frequency_limits``: nobody else reads them), written only by an approved ``frequency`` change.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow

USER_FK = "users.id"


class PayerRuleChange(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One proposed change of one rule: its kind (``limit``, ``authorization``, ``frequency``), the payload its kind's checker
    accepted (``proposals.py``), its state (proposed -> approved | rejected | withdrawn), who proposed it
    (``created_at`` is when), who decided, when and why, and the rule an approval wrote."""

    __tablename__ = "payer_rule_changes"
    __table_args__ = (Index("ix_payer_rule_changes_client_state", "client_id", "state", "id"),)

    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(12), default="proposed")
    proposed_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    decided_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    # the row an approval wrote: payer_rules (limit), prior_auth_requirements (authorization) or
    # payer_frequency_limits (frequency); no foreign key, as the first two tables are the deadlines' and
    # priorAuthorization's
    applied_rule_id: Mapped[int | None] = mapped_column(BigId, default=None)


class PayerFrequencyLimit(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A client's frequency limit for a code or code range, from a date: at most `max_units` per period per
    patient (``frequency.py``). Payer id and plan hold ``*`` for any (not NULL, so the unique scope holds on
    both engines); the same scope and date again is an update (version + 1), a later date a new version."""

    __tablename__ = "payer_frequency_limits"
    __table_args__ = (
        UniqueConstraint(
            "client_id",
            "payer_type",
            "payer_id",
            "plan",
            "code_low",
            "code_high",
            "effective_from",
            name="uq_payer_frequency_limits_scope_from",
        ),
    )

    payer_type: Mapped[str] = mapped_column(String(30))
    payer_id: Mapped[str] = mapped_column(String(80))  # "*": every payer of the type
    plan: Mapped[str] = mapped_column(String(80))  # "*": any plan
    code_low: Mapped[str] = mapped_column(String(5))
    code_high: Mapped[str] = mapped_column(String(5))
    max_units: Mapped[int] = mapped_column(Integer)
    period: Mapped[str] = mapped_column(String(16))  # day | rolling_days | months | calendar_year | lifetime
    period_length: Mapped[int | None] = mapped_column(Integer, default=None)  # rolling_days, months: N
    effective_from: Mapped[date] = mapped_column(Date)
    effective_to: Mapped[date | None] = mapped_column(Date, default=None)
    source: Mapped[str] = mapped_column(String(500))
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
