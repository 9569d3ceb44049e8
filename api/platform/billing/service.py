"""Recording a verified billing event: idempotent by event id, ordered by event time.

The event row and the state it changes commit together. A replay is caught
by the unique constraint on `event_id` (a pre-check only saves work): two
deliveries racing each other cannot both be stored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.platform.billing.events import BillingEventIn, InvoiceData, SubscriptionData, unix_to_utc
from api.platform.billing.models import BillingEvent, Invoice, Subscription
from api.platform.organizations.models import Organization


@dataclass(frozen=True)
class Recorded:
    event_id: str
    duplicate: bool
    status: str | None  # applied | unmatched | stale; None for a duplicate


def invoices_statement(organization_id: int) -> Select[Invoice]:
    """The organization's invoices; unordered, for paging."""
    # The session is tenant-scoped; the explicit filter documents the intent.
    return select(Invoice).where(Invoice.organization_id == organization_id)


def events_statement(organization_id: int) -> Select[BillingEvent]:
    """The billing events received for the organization; unordered, for paging."""
    return select(BillingEvent).where(BillingEvent.organization_id == organization_id)


def record_event(database: Database, event: BillingEventIn, *, now: datetime | None = None) -> Recorded:
    """Store `event` and apply it, or recognise it as a replay. Retries once on a creation race."""
    for attempt in (1, 2):
        try:
            with database.transaction(write=True) as db:
                if db.scalar(select(BillingEvent.id).where(BillingEvent.event_id == event.id)) is not None:
                    return Recorded(event.id, True, None)
                return Recorded(event.id, False, _store_and_apply(db, event, now or utcnow()))
        except IntegrityError:
            with database.transaction(write=False) as db:
                if db.scalar(select(BillingEvent.id).where(BillingEvent.event_id == event.id)) is not None:
                    return Recorded(event.id, True, None)
            # Another event for the same organization created its subscription/invoice first: apply again.
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _store_and_apply(db: Session, event: BillingEventIn, now: datetime) -> str:
    org_id = event.data.organization_id
    known = db.get(Organization, org_id) is not None
    payload = event.model_dump(mode="json")
    row = BillingEvent(
        event_id=event.id,
        type=event.type,
        organization_id=org_id if known else None,
        status="unmatched",
        event_created_at=event.created_at,
        received_at=now,
        payload=payload,
        payload_sha256=hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest(),
    )
    db.add(row)
    db.flush()  # the unique event_id is checked here, before any state changes
    if not known:
        return row.status
    row.status = "applied" if _apply(db, event, now) else "stale"
    return row.status


def _apply(db: Session, event: BillingEventIn, now: datetime) -> bool:
    """Apply the event's subscription or invoice state; False when it is older than what is stored."""
    if event.data.subscription is not None:
        return _apply_subscription(db, event, event.data.subscription, now)
    if event.data.invoice is not None:
        return _apply_invoice(db, event, event.data.invoice, now)
    # BillingEventIn's validator makes every event type carry its subscription or invoice part.
    raise AssertionError(f"{event.type} event without subscription or invoice data")


def _apply_subscription(db: Session, event: BillingEventIn, data: SubscriptionData, now: datetime) -> bool:
    sub = db.scalar(select(Subscription).where(Subscription.organization_id == event.data.organization_id))
    if sub is None:
        sub = Subscription(organization_id=event.data.organization_id)
        db.add(sub)
    elif sub.last_event_at > event.created_at:
        return False  # delivered out of order: a newer event already set the state
    sub.plan = data.plan
    sub.status = data.status
    sub.current_period_end = unix_to_utc(data.current_period_end)
    sub.updated_at = now
    sub.last_event_at = event.created_at
    sub.last_event_id = event.id
    db.flush()
    return True


def _apply_invoice(db: Session, event: BillingEventIn, data: InvoiceData, now: datetime) -> bool:
    invoice = db.scalar(select(Invoice).where(Invoice.invoice_id == data.id))
    if invoice is None:
        invoice = Invoice(organization_id=event.data.organization_id, invoice_id=data.id, created_at=now)
        db.add(invoice)
    elif invoice.organization_id != event.data.organization_id:
        return False  # an invoice id never moves between organizations; keep the event, change nothing
    elif invoice.last_event_at > event.created_at:
        return False
    invoice.amount_due_cents = data.amount_cents
    invoice.currency = data.currency.lower()
    invoice.status = data.status
    invoice.period_start = unix_to_utc(data.period_start)
    invoice.period_end = unix_to_utc(data.period_end)
    invoice.updated_at = now
    invoice.last_event_at = event.created_at
    db.flush()
    return True
