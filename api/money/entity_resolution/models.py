"""Entity resolution tables: patient identities (digests and name filters only), the claims seen in each
file, their block keys, the scored candidate pairs and the links people confirmed (never deleted: a
split keeps the link with who split it, when and why).

No column holds PHI: identity fields are HMAC-SHA256 digests under the deployment's linkage key and
Bloom filters of name bigrams (`encoding.py`); claims are named by the platform's claim keys, service
dates only as digests.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY as Money

USER_FK = "users.id"


class PatientIdentity(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One patient identity as files spell it: rows whose every digest and filter is equal share it
    (`fingerprint`, a digest of them all); different spellings of one person are different identities
    until a person merges them."""

    __tablename__ = "er_patient_identities"
    __table_args__ = (UniqueConstraint("client_id", "fingerprint", name="uq_er_patient_identities_fingerprint"),)

    fingerprint: Mapped[str] = mapped_column(String(64))
    dob_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    dob_digits_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    birth_year_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    member_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    sex_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    first_name_bloom: Mapped[str | None] = mapped_column(String(250), default=None)
    last_name_bloom: Mapped[str | None] = mapped_column(String(250), default=None)


class ClaimRecord(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One claim as one confirmed file shows it (an 837 CLM, an 835 CLP, an export's claim)."""

    __tablename__ = "er_claim_records"
    __table_args__ = (
        UniqueConstraint("batch_id", "row_number", name="uq_er_claim_records_row"),
        Index("ix_er_claim_records_client_payer", "client_id", "payer_name"),
    )

    batch_id: Mapped[int] = mapped_column(BigId, ForeignKey("import_batches.id", ondelete="CASCADE"))
    row_number: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(8))  # 837 | 835 | csv
    claim_key: Mapped[str] = mapped_column(String(80))  # as the file spells it (the platform's reference)
    claim_key_normalized: Mapped[str] = mapped_column(String(80))
    payer_claim_number: Mapped[str] = mapped_column(String(80), default="")  # normalized CLP07
    identity_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("er_patient_identities.id", ondelete="SET NULL"), default=None
    )
    service_from_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    service_to_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    total_charge: Mapped[Decimal | None] = mapped_column(Money, default=None)
    payer_name: Mapped[str | None] = mapped_column(String(200), default=None)  # as spelled, upper-cased
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)


class BlockKey(IdMixin, TenantScoped, Base):
    """One block key of a patient identity or a claim record: records sharing a key are compared."""

    __tablename__ = "er_block_keys"
    __table_args__ = (Index("ix_er_block_keys_client_key", "client_id", "kind", "key"),)

    kind: Mapped[str] = mapped_column(String(8))  # patient | claim
    subject_id: Mapped[int] = mapped_column(BigId)
    key: Mapped[str] = mapped_column(String(80))


class Candidate(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A scored pair at or above the review threshold: two identities (patient) or two claim records
    (claim), `left_id` < `right_id`; `open` until a person merges it, `open` again when split."""

    __tablename__ = "er_candidates"
    __table_args__ = (
        UniqueConstraint("client_id", "kind", "left_id", "right_id", name="uq_er_candidates_pair"),
        Index("ix_er_candidates_client_kind_state", "client_id", "kind", "state", "id"),
    )

    kind: Mapped[str] = mapped_column(String(8))
    left_id: Mapped[int] = mapped_column(BigId)
    right_id: Mapped[int] = mapped_column(BigId)
    score: Mapped[float] = mapped_column(Float)
    fields: Mapped[list[Any]] = mapped_column(JSON, default=list)  # [[field, level, weight], ...]
    state: Mapped[str] = mapped_column(String(8), default="open")  # open | merged


class Link(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A merge a person confirmed: two identities, two claim records, or a payer spelling -> a canonical
    payer (written to reconciliation's `payer_aliases`). Split, it stays, with who split it and why."""

    __tablename__ = "er_links"
    __table_args__ = (Index("ix_er_links_client_kind_state", "client_id", "kind", "state"),)

    kind: Mapped[str] = mapped_column(String(8))  # patient | claim | payer
    left_ref: Mapped[str] = mapped_column(String(200))  # identity / record id, or the payer spelling
    right_ref: Mapped[str] = mapped_column(String(200))  # identity / record id, or the canonical payer key
    candidate_id: Mapped[int | None] = mapped_column(BigId, default=None)
    score: Mapped[float | None] = mapped_column(Float, default=None)
    state: Mapped[str] = mapped_column(String(8), default="active")  # active | split
    merged_by: Mapped[int] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="RESTRICT"))
    split_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="RESTRICT"), default=None)
    split_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    split_reason: Mapped[str | None] = mapped_column(String(40), default=None)  # a SplitReason
    # payer: the alias the merge wrote (its state), so a split can tell whether it changed since
    alias_written: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
