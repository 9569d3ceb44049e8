"""Eligibility checks: one row per 270 sent and the 271 it got back, read into its outcome.

PHI is kept out: the member id is stored as a keyed digest (`member_key`, HMAC-SHA256 with the
installation's secret, so the same member is recognised without the id being readable or guessable from
the database alone) plus its last four characters for display; the birth date is sent in the 270 and not
stored; names are never asked. The raw 270 and 271 are not stored either (they name the member): only
their SHA-256 digests and sizes, and the control numbers that tie the exchange to the payer's records.
``patient_ref`` is the caller's opaque reference to the patient (like ``claims.patient_ref``).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime


class EligibilityCheck(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One coverage check of a patient with a payer for a service date, and what the payer answered."""

    __tablename__ = "eligibility_checks"
    __table_args__ = (Index("ix_eligibility_checks_client_patient", "client_id", "patient_ref", "id"),)

    patient_ref: Mapped[str] = mapped_column(String(80))
    payer_id: Mapped[str] = mapped_column(String(80))
    payer_name: Mapped[str | None] = mapped_column(String(200), default=None)  # the 271's NM1*PR
    member_key: Mapped[str] = mapped_column(String(64))
    member_last4: Mapped[str] = mapped_column(String(4))
    birth_date_sent: Mapped[bool] = mapped_column(Boolean, default=False)
    service_date: Mapped[date] = mapped_column(Date)
    service_types: Mapped[list[str]] = mapped_column(JSON, default=list)
    provider_npi: Mapped[str] = mapped_column(String(10))
    transport: Mapped[str] = mapped_column(String(20))
    # active | inactive | not_found | rejected | error
    status: Mapped[str] = mapped_column(String(12))
    status_reason: Mapped[str | None] = mapped_column(String(300), default=None)
    rejection_codes: Mapped[list[str]] = mapped_column(JSON, default=list)
    plan_name: Mapped[str | None] = mapped_column(String(200), default=None)
    group_number: Mapped[str | None] = mapped_column(String(80), default=None)
    plan_begin: Mapped[date | None] = mapped_column(Date, default=None)
    plan_end: Mapped[date | None] = mapped_column(Date, default=None)
    other_coverage: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    patient_share: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # the exchange: our 270's ISA13 / GS06 / ST02 and TRN02, the 271's ISA13 and ST02
    interchange_control: Mapped[str] = mapped_column(String(9))
    group_control: Mapped[str] = mapped_column(String(9))
    transaction_control: Mapped[str] = mapped_column(String(9))
    trace_number: Mapped[str] = mapped_column(String(50))
    response_interchange_control: Mapped[str | None] = mapped_column(String(9), default=None)
    response_transaction_control: Mapped[str | None] = mapped_column(String(9), default=None)
    request_digest: Mapped[str] = mapped_column(String(64))
    request_bytes: Mapped[int] = mapped_column(Integer)
    response_digest: Mapped[str | None] = mapped_column(String(64), default=None)
    response_bytes: Mapped[int | None] = mapped_column(Integer, default=None)
    checked_at: Mapped[datetime] = mapped_column(UtcDateTime())
    checked_on: Mapped[date] = mapped_column(Date)  # the client's day of the check (its time zone)
    checked_by_user_id: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))
