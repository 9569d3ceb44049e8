"""Ingestion tables: landing files, import batches and rows, financial entries, reconciliation."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime
from pipelines.ingest.money import SQLALCHEMY_MONEY

Money = SQLALCHEMY_MONEY


class LandingFile(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One client's upload of some bytes kept in the landing zone (the bytes live on disk, by hash)."""

    __tablename__ = "landing_files"
    __table_args__ = (Index("ix_landing_files_client_sha", "client_id", "content_sha256"),)

    content_sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    original_filename: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str | None] = mapped_column(String(120), default=None)
    detected_format: Mapped[str | None] = mapped_column(String(20), default=None)
    uploaded_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)


class ImportBatch(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One uploaded file turned into rows to review, repair and confirm."""

    __tablename__ = "import_batches"
    __table_args__ = (
        UniqueConstraint("client_id", "content_sha256", "kind"),
        Index("ix_import_batches_client_status", "client_id", "status"),
    )

    landing_file_id: Mapped[int] = mapped_column(BigId, ForeignKey("landing_files.id", ondelete="RESTRICT"))
    kind: Mapped[str] = mapped_column(
        String(30)
    )  # era_835 | claims_837 | csv_claims | csv_payments | csv_denials | csv_deposits | csv_contract_terms | unknown
    source_filename: Mapped[str] = mapped_column(String(255))
    content_sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    source_format: Mapped[str | None] = mapped_column(String(20), default=None)
    profile_name: Mapped[str | None] = mapped_column(String(80), default=None)
    status: Mapped[str] = mapped_column(String(20))
    parser_version: Mapped[str] = mapped_column(String(40))
    error_report: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    row_count: Mapped[int] = mapped_column(Integer, default=0)
    valid_count: Mapped[int] = mapped_column(Integer, default=0)
    invalid_count: Mapped[int] = mapped_column(Integer, default=0)
    excluded_count: Mapped[int] = mapped_column(Integer, default=0)
    totals: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)  # name -> exact decimal string
    quality: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    confirmed_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    confirmed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    entries_posted: Mapped[int] = mapped_column(Integer, default=0)
    # What does not balance in the file (transactions and claims with their amounts); a batch with an
    # imbalance is held until a confirm acknowledges it with a reason, recorded here.
    imbalance: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    imbalance_ack_reason: Mapped[str | None] = mapped_column(Text, default=None)
    imbalance_ack_by: Mapped[int | None] = mapped_column(BigId, default=None)  # a user id, kept if the user goes
    imbalance_ack_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    # The 835 remittances of the file (identity key, trace, signed amount, date); `postedBy` names the
    # batch that already posted one, which this batch then does not post again.
    remittances: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list, server_default="[]")
    redelivery_of_batch_id: Mapped[int | None] = mapped_column(BigId, default=None)


class PostedRemittance(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One 835 remittance (payer, trace number, signed amount, payment date) posted for a client.

    The unique constraint is what makes posting a remittance once true under concurrency: two confirms
    of the same remittance in different envelopes cannot both insert its identity."""

    __tablename__ = "posted_remittances"
    __table_args__ = (UniqueConstraint("client_id", "identity_sha256", name="uq_posted_remittances_identity"),)

    identity_sha256: Mapped[str] = mapped_column(String(64))
    batch_id: Mapped[int] = mapped_column(BigId, ForeignKey("import_batches.id", ondelete="RESTRICT"))
    transaction_index: Mapped[int] = mapped_column(Integer)
    trace_number: Mapped[str] = mapped_column(String(80))
    amount: Mapped[Decimal] = mapped_column(Money)
    payment_date: Mapped[date | None] = mapped_column(Date, default=None)


class ImportRow(IdMixin, TenantScoped, Base):
    """One parsed record of a batch. `data` holds canonical fields and contains PHI: never log it."""

    __tablename__ = "import_rows"
    __table_args__ = (
        UniqueConstraint("batch_id", "row_number"),
        Index("ix_import_rows_batch_status", "batch_id", "status"),
    )

    batch_id: Mapped[int] = mapped_column(BigId, ForeignKey("import_batches.id", ondelete="CASCADE"))
    row_number: Mapped[int] = mapped_column(Integer)
    entity: Mapped[str] = mapped_column(String(30))
    parent_row_number: Mapped[int | None] = mapped_column(Integer, default=None)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(10))  # valid | invalid | repaired
    errors: Mapped[list[str]] = mapped_column(JSON, default=list)
    decision: Mapped[str] = mapped_column(String(10), default="include")  # include | exclude


class FinancialEntry(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A normalised money movement posted when a batch is confirmed."""

    __tablename__ = "financial_entries"
    __table_args__ = (
        Index("ix_financial_entries_client_claim", "client_id", "claim_key"),
        Index("ix_financial_entries_batch", "batch_id"),
    )

    batch_id: Mapped[int] = mapped_column(BigId, ForeignKey("import_batches.id", ondelete="RESTRICT"))
    row_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("import_rows.id", ondelete="SET NULL"), default=None)
    entry_type: Mapped[str] = mapped_column(String(30))
    component: Mapped[str] = mapped_column(String(20))  # paid | cas | plb | charge | denied | adjustment
    amount: Mapped[Decimal] = mapped_column(Money)
    claim_key: Mapped[str | None] = mapped_column(String(80), default=None)
    payer_claim_number: Mapped[str | None] = mapped_column(String(80), default=None)
    claim_status_code: Mapped[str | None] = mapped_column(String(4), default=None)
    billed_amount: Mapped[Decimal | None] = mapped_column(Money, default=None)
    payer: Mapped[str | None] = mapped_column(String(200), default=None)
    group_code: Mapped[str | None] = mapped_column(String(4), default=None)
    carc: Mapped[str | None] = mapped_column(String(10), default=None)
    rarcs: Mapped[list[str]] = mapped_column(JSON, default=list)
    denial_category: Mapped[str | None] = mapped_column(String(40), default=None)
    is_denial: Mapped[bool] = mapped_column(default=False)
    service_date: Mapped[date | None] = mapped_column(Date, default=None)
    payment_date: Mapped[date | None] = mapped_column(Date, default=None)
    reference: Mapped[str | None] = mapped_column(String(80), default=None)  # check/EFT trace, PLB reference
    reverses_entry_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("financial_entries.id", ondelete="SET NULL"), default=None
    )
    review_status: Mapped[str] = mapped_column(String(12), default="unreviewed")
    review_note: Mapped[str | None] = mapped_column(Text, default=None)
    reviewed_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)


class ReconciliationRun(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One matching pass of remittances against claims over the client's posted entries."""

    __tablename__ = "reconciliation_runs"

    status: Mapped[str] = mapped_column(String(12), default="completed")
    started_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    claims_considered: Mapped[int] = mapped_column(Integer, default=0)
    remittances_considered: Mapped[int] = mapped_column(Integer, default=0)
    matched: Mapped[int] = mapped_column(Integer, default=0)
    exception_counts: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)


class ReconciliationException(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """Something the run could not reconcile; worked from open to resolved."""

    __tablename__ = "reconciliation_exceptions"
    __table_args__ = (Index("ix_reconciliation_exceptions_run", "run_id", "status"),)

    run_id: Mapped[int] = mapped_column(BigId, ForeignKey("reconciliation_runs.id", ondelete="CASCADE"))
    exception_type: Mapped[str] = mapped_column(String(30))
    claim_key: Mapped[str | None] = mapped_column(String(80), default=None)
    payer: Mapped[str | None] = mapped_column(String(200), default=None)
    expected_amount: Mapped[Decimal | None] = mapped_column(Money, default=None)
    actual_amount: Mapped[Decimal | None] = mapped_column(Money, default=None)
    detail: Mapped[str] = mapped_column(String(500), default="")
    entry_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(10), default="open")
    resolution: Mapped[str | None] = mapped_column(String(30), default=None)
    resolution_note: Mapped[str | None] = mapped_column(Text, default=None)
    resolved_by: Mapped[int | None] = mapped_column(BigId, ForeignKey("users.id", ondelete="SET NULL"), default=None)
    resolved_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
