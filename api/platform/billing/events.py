"""The billing event format, validated without I/O.

    {"id": "evt_...", "type": "subscription.updated", "created": <unix>,
     "data": {"organization_id": 12,
              "subscription": {"plan": "...", "status": "...", "current_period_end": <unix>, ...}}}
    {"id": "evt_...", "type": "invoice.paid", "created": <unix>,
     "data": {"organization_id": 12,
              "invoice": {"id": "in_...", "amount_due": "1250.00", "currency": "usd", "status": "paid",
                          "period_start": <unix>, "period_end": <unix>, ...}}}

Money arrives as a decimal string (never a JSON number) and is parsed to
`Decimal`. Extra provider fields are kept (the payload is PHI-scanned first).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, model_validator

SUBSCRIPTION_TYPES = ("subscription.created", "subscription.updated", "subscription.canceled")
INVOICE_TYPES = ("invoice.created", "invoice.paid", "invoice.payment_failed")
EventType = Literal[
    "subscription.created",
    "subscription.updated",
    "subscription.canceled",
    "invoice.created",
    "invoice.paid",
    "invoice.payment_failed",
]
UnixTime = StrictInt


class EventInvalid(ValueError):
    """The event does not follow the format; the message names the fields, never their values."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class SubscriptionData(_Part):
    plan: StrictStr = Field(min_length=1, max_length=100)
    status: StrictStr = Field(min_length=1, max_length=40)
    current_period_end: UnixTime | None = Field(default=None, ge=0)


class InvoiceData(_Part):
    id: StrictStr = Field(min_length=1, max_length=100)
    amount_due: StrictStr = Field(pattern=r"^-?\d{1,16}(\.\d{1,2})?$", description="decimal string, e.g. '1250.00'")
    currency: StrictStr = Field(pattern=r"^[A-Za-z]{3}$")
    status: StrictStr = Field(min_length=1, max_length=40)
    period_start: UnixTime | None = Field(default=None, ge=0)
    period_end: UnixTime | None = Field(default=None, ge=0)

    @property
    def amount(self) -> Decimal:
        return Decimal(self.amount_due).quantize(Decimal("0.01"))

    @property
    def amount_cents(self) -> int:
        return int(self.amount * 100)


class EventData(_Part):
    organization_id: StrictInt = Field(gt=0)
    subscription: SubscriptionData | None = None
    invoice: InvoiceData | None = None


class BillingEventIn(_Part):
    id: StrictStr = Field(pattern=r"^evt_[A-Za-z0-9_]{1,100}$")
    type: EventType
    created: UnixTime = Field(ge=0)
    data: EventData

    @model_validator(mode="after")
    def _data_matches_type(self) -> BillingEventIn:
        if self.type in SUBSCRIPTION_TYPES and self.data.subscription is None:
            raise ValueError(f"{self.type} needs data.subscription")
        if self.type in INVOICE_TYPES and self.data.invoice is None:
            raise ValueError(f"{self.type} needs data.invoice")
        return self

    @property
    def created_at(self) -> datetime:
        return datetime.fromtimestamp(self.created, UTC)


def parse_event(document: Any) -> BillingEventIn:
    """Validate a parsed JSON body; raise EventInvalid naming each wrong field."""
    if not isinstance(document, dict):
        raise EventInvalid("the event must be a JSON object")
    try:
        return BillingEventIn.model_validate(document)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_input=False, include_url=False):
            where = ".".join(str(p) for p in err["loc"]) or "event"
            problems.append(f"{where}: {err['msg']}")
        raise EventInvalid("; ".join(problems[:10])) from None


def unix_to_utc(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)
