"""Financial entries after posting: listing, review, and reconciliation runs."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, func, insert, select
from sqlalchemy.orm import Session

from api.core.errors import not_found
from api.core.lifecycle import transition
from api.infra.db.base import utcnow
from api.infra.db.lookup import Between, get_by_id, where_given
from api.money.ingestion.lifecycle import ENTRY_REVIEW, RECONCILIATION_EXCEPTION
from api.money.ingestion.matching import LedgerEntry, reconcile
from api.money.ingestion.models import FinancialEntry, ReconciliationException, ReconciliationRun


def entries_statement(
    *,
    entry_type: str | None = None,
    payer: str | None = None,
    claim_key: str | None = None,
    batch_id: int | None = None,
    review_status: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
) -> Select[Any]:
    """Financial entries matching the filters given, dated by payment (or else service) date within
    the inclusive bounds (the tenant filter adds the client); unordered, for paging."""
    return where_given(
        select(FinancialEntry),
        (FinancialEntry.entry_type, entry_type),
        (FinancialEntry.payer, payer),
        (FinancialEntry.claim_key, claim_key),
        (FinancialEntry.batch_id, batch_id),
        (FinancialEntry.review_status, review_status),
        Between(func.coalesce(FinancialEntry.payment_date, FinancialEntry.service_date), date_from, date_to),
    )


def runs_statement() -> Select[Any]:
    """Every reconciliation run of the selected client; unordered, for paging."""
    return select(ReconciliationRun)


def review_entry(db: Session, entry_id: int, status: str, note: str | None, user_id: int) -> tuple[FinancialEntry, str]:
    entry = db.scalar(select(FinancialEntry).where(FinancialEntry.id == entry_id))
    if entry is None:
        raise not_found("Financial entry", entry_id)
    before = entry.review_status
    entry.review_status = transition(ENTRY_REVIEW, before, status)
    entry.review_note = note
    entry.reviewed_by = user_id
    db.flush()
    return entry, before


def run_reconciliation(db: Session, user_id: int, organization_id: int, client_id: int) -> ReconciliationRun:
    """Match the client's posted remittances to its posted claims and record the exceptions."""
    rows = db.execute(
        select(
            FinancialEntry.id,
            FinancialEntry.entry_type,
            FinancialEntry.component,
            FinancialEntry.amount,
            FinancialEntry.claim_key,
            FinancialEntry.payer_claim_number,
            FinancialEntry.billed_amount,
            FinancialEntry.service_date,
            FinancialEntry.payer,
        ).where(FinancialEntry.component.in_(("charge", "paid", "cas")))
    ).all()
    result = reconcile(
        LedgerEntry(
            r.id,
            r.entry_type,
            r.component,
            Decimal(r.amount),
            r.claim_key,
            r.payer_claim_number,
            Decimal(r.billed_amount) if r.billed_amount is not None else None,
            r.service_date,
            r.payer,
        )
        for r in rows
    )
    run = ReconciliationRun(
        status="completed",
        started_by=user_id,
        claims_considered=result.claims_considered,
        remittances_considered=result.remittances_considered,
        matched=result.matched,
        exception_counts=result.counts(),
        finished_at=utcnow(),
    )
    db.add(run)
    db.flush()
    values = [
        {
            "organization_id": organization_id,
            "client_id": client_id,
            "run_id": run.id,
            "created_at": utcnow(),
            "exception_type": f.exception_type,
            "claim_key": f.claim_key,
            "payer": f.payer,
            "expected_amount": f.expected_amount,
            "actual_amount": f.actual_amount,
            "detail": f.detail,
            "entry_ids": list(f.entry_ids),
            "status": "open",
        }
        for f in result.findings
    ]
    for start in range(0, len(values), 1000):
        db.execute(insert(ReconciliationException), values[start : start + 1000])
    return run


def get_run(db: Session, run_id: int) -> ReconciliationRun:
    return get_by_id(db, ReconciliationRun, run_id, "Reconciliation run")


def run_exceptions(db: Session, run_id: int) -> list[ReconciliationException]:
    return list(
        db.scalars(
            select(ReconciliationException)
            .where(ReconciliationException.run_id == run_id)
            .order_by(ReconciliationException.id)
        )
    )


def resolve_exception(
    db: Session, exception_id: int, resolution: str, note: str, user_id: int
) -> ReconciliationException:
    exc = db.scalar(select(ReconciliationException).where(ReconciliationException.id == exception_id))
    if exc is None:
        raise not_found("Reconciliation exception", exception_id)
    exc.status = transition(RECONCILIATION_EXCEPTION, exc.status, "resolved")
    exc.resolution = resolution
    exc.resolution_note = note
    exc.resolved_by = user_id
    exc.resolved_at = utcnow()
    db.flush()
    return exc
