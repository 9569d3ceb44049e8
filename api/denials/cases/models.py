"""Denial cases and their history.

A case is opened by the confirm of a remittance with a denial (or a recoupment) and by hand
(``cases.open``). ``denial_key`` is what makes opening idempotent: the digest of the claim, the
payer identity and the episode ordinal (``rules.episode_key``; a case opened by hand: its claim,
payer, kind, amount, date and reference), unique per client, so a re-upload, a re-run or two
concurrent confirms can never open a second case for one denial episode.

``claim_key`` (CLP01, the provider's patient control number) is an account identifier: it is
stored to link the case to the ledger and the marts, and never logged or put in an error message.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money


class DenialCase(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One claim x payer x denial event: the amount at stake, its classification, state and owner."""

    __tablename__ = "denial_cases"
    __table_args__ = (
        UniqueConstraint("client_id", "denial_key", name="uq_denial_cases_denial_key"),
        Index("ix_denial_cases_client_state", "client_id", "state"),
        Index("ix_denial_cases_client_claim", "client_id", "claim_key"),
        Index("ix_denial_cases_client_owner", "client_id", "owner_user_id"),
        # humanAttention.queue: the client's (or one owner's) worklist is an index scan + LIMIT
        Index("ix_denial_cases_client_priority", "client_id", "priority_score"),
        Index("ix_denial_cases_client_owner_priority", "client_id", "owner_user_id", "priority_score"),
        # a category's worklist (a team works one kind of denial): without it the queue walks the whole
        # client's index past the other categories (16k rows for medical necessity at 100k cases)
        Index("ix_denial_cases_client_category_priority", "client_id", "denial_category", "priority_score"),
    )

    denial_key: Mapped[str] = mapped_column(String(64))
    origin: Mapped[str] = mapped_column(String(12))  # remittance | manual | migration
    event_kind: Mapped[str] = mapped_column(String(12))  # denial | recoupment
    claim_key: Mapped[str] = mapped_column(String(80))
    payer: Mapped[str] = mapped_column(String(200))
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    payer_class: Mapped[str | None] = mapped_column(String(30), default=None)
    # the claim x payer x episode the case shows (api/denials/cases/history.py): the marts' payer_identity
    # (payer id, else the upper-cased name) and the episode's ordinal; None on a case opened by hand
    # until a remittance of its claim x payer adopts it
    payer_identity: Mapped[str | None] = mapped_column(String(200), default=None)
    episode: Mapped[int | None] = mapped_column(Integer, default=None)
    source_batch_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("import_batches.id", ondelete="SET NULL"), default=None
    )
    payer_claim_number: Mapped[str | None] = mapped_column(String(80), default=None)
    claim_status_code: Mapped[str | None] = mapped_column(String(4), default=None)
    remittance_date: Mapped[date | None] = mapped_column(Date, default=None)
    service_date: Mapped[date | None] = mapped_column(Date, default=None)
    # classification of the primary (largest) denied adjustment
    denial_category: Mapped[str | None] = mapped_column(String(40), default=None)
    group_code: Mapped[str | None] = mapped_column(String(4), default=None)
    carc: Mapped[str | None] = mapped_column(String(10), default=None)
    rarcs: Mapped[list[str]] = mapped_column(JSON, default=list)
    hard_or_soft: Mapped[str | None] = mapped_column(String(10), default=None)
    preventable: Mapped[str | None] = mapped_column(String(10), default=None)
    # money: at stake = what the payer denied or took back; paid_before = what the payer had paid
    # for the claim when the case opened (the base the recovery is measured against)
    billed_amount: Mapped[Decimal | None] = mapped_column(Money, default=None)
    amount_at_stake: Mapped[Decimal] = mapped_column(Money)
    paid_before: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    recovered_amount: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    # the part of recovered_amount recorded by hand (caseRecovery.recordRecovery): a later update from
    # the ledger adds it to what the payer paid, so neither source overwrites the other
    recovered_by_hand: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    written_off_amount: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    # work
    state: Mapped[str] = mapped_column(String(20), default="open")
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    owner_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    escalated: Mapped[bool] = mapped_column(Boolean, default=False)
    on_hold: Mapped[bool] = mapped_column(Boolean, default=False)
    hold_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    appeal_due_on: Mapped[date | None] = mapped_column(Date, default=None)  # the next deadline
    # the appeal deadline the hospital's own worklist export states (tabular intake); the scheduler uses it
    # as the appeal deadline, source "the hospital's export"
    stated_appeal_deadline: Mapped[date | None] = mapped_column(Date, default=None)
    # the case's deadlines assume a payer class (the payer is unknown: the shortest common window); kept by
    # deadlines.service.schedule_case
    deadline_assumed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    snoozed_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    recovery_plan: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    last_update_reason: Mapped[str | None] = mapped_column(String(500), default=None)
    closed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    # humanAttention's precomputed rank (api/denials/human_attention/service.py writes them when outcomes
    # are recorded or a case is rescored; None: not scored yet). priority_score is time-invariant: the
    # deadline enters as -due/tau, so the order holds from day to day without rewriting rows.
    overturn_probability: Mapped[float | None] = mapped_column(Float, default=None)
    expected_recovery: Mapped[Decimal | None] = mapped_column(Money, default=None)
    priority_score: Mapped[float | None] = mapped_column(Float, default=None)
    priority_due_on: Mapped[date | None] = mapped_column(Date, default=None)  # the deadline the score used
    priority_scored_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    # Which estimate gave overturn_probability: the client's outcome model of this version (outcomeLearning,
    # only a version that beat the prior on held-out data), or None: the worklist's Beta-binomial.
    overturn_model_version: Mapped[int | None] = mapped_column(Integer, default=None)


class CaseEvent(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Everything that happened to a case, in order: moves, assignments, escalations, holds,
    releases, automatic updates from the ledger, recoveries. Never updated or deleted."""

    __tablename__ = "denial_case_events"
    __table_args__ = (Index("ix_denial_case_events_case", "case_id", "id"),)

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))  # opened | transition | assigned | escalated | ...
    from_state: Mapped[str | None] = mapped_column(String(20), default=None)
    to_state: Mapped[str | None] = mapped_column(String(20), default=None)
    reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    actor_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None
    )  # None: the platform (a confirmed remittance)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class CaseNote(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A specialist's note on a case. Free text may contain PHI: it is returned to members of the
    client and never logged or audited in clear."""

    __tablename__ = "denial_case_notes"
    __table_args__ = (Index("ix_denial_case_notes_case", "case_id", "id"),)

    case_id: Mapped[int] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="CASCADE"))
    author_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
    body: Mapped[str] = mapped_column(Text)
