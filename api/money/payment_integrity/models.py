"""Variance flags raised on claims paid off contract, and the contract terms a client uploaded (the variances come from the marts)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped
from pipelines.ingest.money import SQLALCHEMY_MONEY


class VarianceFlag(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A claim whose payment differs from the contract, flagged for follow-up with the payer."""

    __tablename__ = "payment_variance_flags"
    __table_args__ = (UniqueConstraint("client_id", "claim_key", "direction"),)

    claim_key: Mapped[str] = mapped_column(String(80))
    direction: Mapped[str] = mapped_column(String(20))  # underpayment | overpayment
    variance_amount: Mapped[Decimal] = mapped_column(SQLALCHEMY_MONEY)
    reason: Mapped[str] = mapped_column(String(40))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    status: Mapped[str] = mapped_column(String(20), default="open")
    flagged_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class ContractTerm(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One contract term of a client with a payer (and plan): how a service is priced between two dates.

    Uploaded as a ``contract_terms`` CSV (ingestion); the confirmed file replaces the client's terms of
    each (payer, plan) it names, so a corrected contract is re-uploaded whole. The marts price with these
    terms (int_contract_terms); the ``contracts/contract_terms`` seed only prices payers a client has no
    uploaded terms for."""

    __tablename__ = "contract_terms"
    __table_args__ = (Index("ix_contract_terms_payer", "client_id", "payer_key", "plan_code"),)

    batch_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("import_batches.id", ondelete="SET NULL"))
    source_row_number: Mapped[int | None] = mapped_column(Integer, default=None)
    payer_name: Mapped[str] = mapped_column(String(200))
    payer_key: Mapped[str] = mapped_column(String(200))  # upper(trim(payer_name)), the marts' payer key
    payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    plan_code: Mapped[str | None] = mapped_column(String(80), default=None)  # matched to CLP06; None = any plan
    method: Mapped[str] = mapped_column(String(30))  # fee_schedule | drg_case_rate | per_diem | percent_of_charges
    procedure_code: Mapped[str | None] = mapped_column(String(20), default=None)
    modifier: Mapped[str | None] = mapped_column(String(10), default=None)
    drg_code: Mapped[str | None] = mapped_column(String(10), default=None)
    rate: Mapped[Decimal | None] = mapped_column(SQLALCHEMY_MONEY, default=None)
    percent_of_charges: Mapped[Decimal | None] = mapped_column(SQLALCHEMY_MONEY, default=None)
    lesser_of: Mapped[bool] = mapped_column(Boolean, default=False)
    effective_from: Mapped[date] = mapped_column(Date)
    effective_to: Mapped[date | None] = mapped_column(Date, default=None)
