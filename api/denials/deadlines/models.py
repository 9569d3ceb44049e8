"""Stored deadlines of denial cases, with their overrides, and the client's own payer rules."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import Boolean, Date, ForeignKey, Index, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow


class CaseDeadline(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One deadline of one case and level. ``due_on`` is the date that counts: the override when
    there is one, else ``computed_due_on`` (what the rule gives from ``basis_date``)."""

    __tablename__ = "case_deadlines"
    __table_args__ = (
        UniqueConstraint("case_id", "level", name="uq_case_deadlines_case_level"),
        Index("ix_case_deadlines_client_status_due", "client_id", "status", "due_on"),
    )

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    level: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))  # appeal | timely_filing
    basis: Mapped[str] = mapped_column(String(60))  # what basis_date is (the rule's basis column)
    basis_date: Mapped[date] = mapped_column(Date)
    computed_due_on: Mapped[date] = mapped_column(Date)
    due_on: Mapped[date] = mapped_column(Date)
    rule_reference: Mapped[str] = mapped_column(String(120))
    limit_days: Mapped[int] = mapped_column()
    business_days: Mapped[bool] = mapped_column(Boolean, default=False)
    is_default_rule: Mapped[bool] = mapped_column(Boolean, default=False)
    # why this rule (payerRules): the payer type whose rule it is, whether the payer was unknown and the
    # shortest common window assumed, where the limit comes from (a citation, a client's rule's source,
    # or "the hospital's export" for a deadline stated in the hospital's worklist)
    payer_type: Mapped[str | None] = mapped_column(String(30), default=None)
    assumed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    rule_source: Mapped[str | None] = mapped_column(String(500), default=None)
    status: Mapped[str] = mapped_column(String(10), default="open")  # open | met | missed
    overridden_due_on: Mapped[date | None] = mapped_column(Date, default=None)
    override_reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    overridden_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    overridden_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)


class PayerRule(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A client's own appeal or timely-filing limit (payerRules.upsert), overriding the platform default
    (the ``payer_appeal_limits`` seed) from ``effective_from``: per payer type (``payer_id`` = ``*``) or
    per payer (its payer id, e.g. a state's Medicaid program or a contracted commercial plan).

    The table lives with the deadline scheduler that reads it (``deadlines.service``); the payerRules
    namespace (``api/intelligence/payer_rules``) writes and explains it."""

    __tablename__ = "payer_rules"
    __table_args__ = (
        UniqueConstraint(
            "client_id", "payer_type", "payer_id", "level", "effective_from", name="uq_payer_rules_scope_level_from"
        ),
    )

    payer_type: Mapped[str] = mapped_column(String(30))
    payer_id: Mapped[str] = mapped_column(String(80))  # "*": every payer of the type
    level: Mapped[str] = mapped_column(String(40))
    days: Mapped[int] = mapped_column()
    day_count: Mapped[str] = mapped_column(String(10))  # calendar | business
    roll_forward: Mapped[bool] = mapped_column(Boolean, default=False)
    basis: Mapped[str] = mapped_column(String(60))
    receipt_days: Mapped[int] = mapped_column(default=0)
    effective_from: Mapped[date] = mapped_column(Date)
    source: Mapped[str] = mapped_column(String(500))  # the contract clause, the state's rule
    updated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)
