"""Claims and everything recorded about them before (and just after) submission.

``claim_key`` is the provider's patient control number (837 CLM01, 835 CLP01): an account
identifier, unique per client, stored to tie the claim to the ledger, the cases and the marts, and
never logged or put in an error message. ``patient_ref`` is an opaque reference to the patient
(a caller's token, or a keyed digest for claims read from an 837), never a name, member id or
birth date: the claim keeps only the PHI a claim needs (dates of service, diagnosis codes).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Date, ForeignKey, Index, Integer, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money

USER_FK = "users.id"


class Claim(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One claim header: who pays, for when, how much, and where it stands in its lifecycle."""

    __tablename__ = "claims"
    __table_args__ = (
        UniqueConstraint("client_id", "claim_key", name="uq_claims_claim_key"),
        Index("ix_claims_client_state", "client_id", "state"),
    )

    claim_key: Mapped[str] = mapped_column(String(80))
    payer: Mapped[str | None] = mapped_column(String(200), default=None)
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    filing_indicator: Mapped[str | None] = mapped_column(String(4), default=None)
    statement_from: Mapped[date | None] = mapped_column(Date, default=None)
    statement_to: Mapped[date | None] = mapped_column(Date, default=None)
    total_charge: Mapped[Decimal] = mapped_column(Money)
    facility_type: Mapped[str | None] = mapped_column(String(4), default=None)
    bill_type: Mapped[str | None] = mapped_column(String(4), default=None)
    # The CMS place-of-service code (2 digits) of a professional or dental claim: 837P/837D CLM05-1. An
    # 837I's CLM05-1 is the facility type of its type of bill, never a place of service: None there.
    place_of_service: Mapped[str | None] = mapped_column(String(2), default=None)
    # The plan the claim is billed under (837 SBR03, the subscriber's group or policy number; a claims
    # export's plan column), trimmed and upper-cased as prior-authorization requirements compare plans.
    plan: Mapped[str | None] = mapped_column(String(80), default=None)
    diagnosis_codes: Mapped[list[str]] = mapped_column(JSON, default=list)
    origin: Mapped[str] = mapped_column(String(12))  # manual | 837 | csv | synthetic | migration
    source_batch_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("import_batches.id", ondelete="SET NULL"), default=None
    )
    patient_ref: Mapped[str | None] = mapped_column(String(80), default=None)
    is_synthetic: Mapped[bool] = mapped_column(Boolean, default=False)
    synthetic_seed: Mapped[int | None] = mapped_column(BigInteger, default=None)
    state: Mapped[str] = mapped_column(String(40))
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    # Who asked for submission preparation: the approval must come from someone else.
    submission_requested_by: Mapped[int | None] = mapped_column(
        BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None
    )
    submission_approved_by: Mapped[int | None] = mapped_column(
        BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None
    )


class ClaimLine(IdMixin, TenantScoped, Base):
    """One service line of a claim."""

    __tablename__ = "claim_lines"
    __table_args__ = (UniqueConstraint("claim_id", "line_number", name="uq_claim_lines_number"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    line_number: Mapped[int] = mapped_column(Integer)
    procedure_code: Mapped[str | None] = mapped_column(String(20), default=None)
    modifiers: Mapped[list[str]] = mapped_column(JSON, default=list)
    revenue_code: Mapped[str | None] = mapped_column(String(10), default=None)
    units: Mapped[Decimal | None] = mapped_column(Numeric(12, 3), default=None)
    charge: Mapped[Decimal] = mapped_column(Money)
    service_date_from: Mapped[date | None] = mapped_column(Date, default=None)
    service_date_to: Mapped[date | None] = mapped_column(Date, default=None)
    # The line's own place of service (837P SV105, 837D SV303), overriding the claim's; None: the claim's.
    place_of_service: Mapped[str | None] = mapped_column(String(2), default=None)


class ClaimTransition(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One move of a claim (its creation is the move from nothing). Never updated or deleted."""

    __tablename__ = "claim_transitions"
    __table_args__ = (Index("ix_claim_transitions_claim", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    from_state: Mapped[str | None] = mapped_column(String(40), default=None)
    to_state: Mapped[str] = mapped_column(String(40))
    actor_user_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None
    )  # None: the platform (a confirmed file)
    reason: Mapped[str | None] = mapped_column(String(1000), default=None)


class ClaimAmount(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A money figure about a claim (expected, billed, allowed, paid, patient) and where it came from."""

    __tablename__ = "claim_amounts"
    __table_args__ = (Index("ix_claim_amounts_claim", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(12))
    amount: Mapped[Decimal] = mapped_column(Money)
    source: Mapped[str] = mapped_column(String(12))  # contract | remittance | manual | migration
    reference: Mapped[str | None] = mapped_column(String(120), default=None)
    recorded_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)


class ClaimAttachment(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A reference to a document supporting the claim (the bytes live elsewhere, named by storage_ref)."""

    __tablename__ = "claim_attachments"
    __table_args__ = (Index("ix_claim_attachments_claim", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(200))
    media_type: Mapped[str] = mapped_column(String(100))
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    storage_ref: Mapped[str | None] = mapped_column(String(500), default=None)
    added_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)


class ClaimLink(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A claim tied to a denial case or to a remittance batch of its history (one link per target)."""

    __tablename__ = "claim_links"
    __table_args__ = (UniqueConstraint("claim_id", "kind", "target_id", name="uq_claim_links_target"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))  # denial_case | era
    target_id: Mapped[int] = mapped_column(BigInteger)  # the denial case id or the import batch id
    reference: Mapped[str | None] = mapped_column(String(200), default=None)  # e.g. the remitting payer
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)


class ClaimExternalAction(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """An action for another system, prepared with its exact payload and never sent from here."""

    __tablename__ = "claim_external_actions"
    __table_args__ = (Index("ix_claim_external_actions_claim", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    target_system: Mapped[str] = mapped_column(String(40))
    action: Mapped[str] = mapped_column(String(40))
    partner_profile_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("partner_profiles.id", ondelete="SET NULL"), default=None
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    payload_sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(12), default="prepared")
    prepared_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)


class PartnerProfile(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A trading partner (clearinghouse or payer) with its interchange identifiers; drafted by one member,
    approved or rejected by another."""

    __tablename__ = "partner_profiles"
    __table_args__ = (UniqueConstraint("client_id", "name", name="uq_partner_profiles_name"),)

    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))  # clearinghouse | payer
    isa_qualifier: Mapped[str] = mapped_column(String(2))
    isa_id: Mapped[str] = mapped_column(String(15))
    gs_id: Mapped[str] = mapped_column(String(15))
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    connection_notes: Mapped[str | None] = mapped_column(String(2000), default=None)
    status: Mapped[str] = mapped_column(String(12), default="draft")  # draft | approved | rejected
    author_user_id: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    reviewed_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    reviewed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    review_reason: Mapped[str | None] = mapped_column(String(1000), default=None)
