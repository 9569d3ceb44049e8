"""Wire shapes of billing.*."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from api.rpc.schema import Output


class SubscriptionOut(Output):
    plan: str
    status: str
    current_period_end: datetime | None
    updated_at: datetime


class InvoiceOut(Output):
    id: int
    invoice_id: str
    amount_due: Decimal
    currency: str
    status: str
    period_start: datetime | None
    period_end: datetime | None
    updated_at: datetime


class BillingEventOut(Output):
    id: int
    event_id: str
    type: str
    status: str
    event_created_at: datetime
    received_at: datetime
