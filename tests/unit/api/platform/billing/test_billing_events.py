"""Billing event format: valid shapes parse, wrong ones are named by field without echoing values."""

from __future__ import annotations

from decimal import Decimal

import pytest

from api.platform.billing.events import EventInvalid, parse_event


def subscription_event(**overrides):
    event = {
        "id": "evt_abc123",
        "type": "subscription.updated",
        "created": 1_750_000_000,
        "data": {
            "organization_id": 7,
            "subscription": {"plan": "growth", "status": "active", "current_period_end": 1_752_000_000},
        },
    }
    event.update(overrides)
    return event


def invoice_event(amount="1250.10"):
    return {
        "id": "evt_inv1",
        "type": "invoice.paid",
        "created": 1_750_000_000,
        "data": {
            "organization_id": 7,
            "invoice": {
                "id": "in_1",
                "amount_due": amount,
                "currency": "USD",
                "status": "paid",
                "period_start": 1,
                "period_end": 2,
            },
        },
    }


def test_subscription_event_parses():
    event = parse_event(subscription_event())
    assert event.data.subscription.plan == "growth"
    assert event.created_at.year == 2025


def test_invoice_amount_is_exact():
    event = parse_event(invoice_event("1250.10"))
    assert event.data.invoice.amount == Decimal("1250.10")
    assert event.data.invoice.amount_cents == 125010
    assert parse_event(invoice_event("0.1")).data.invoice.amount_cents == 10


@pytest.mark.parametrize("amount", [1250.1, "12.345", "1,250.00", "abc", ""])
def test_bad_amounts_are_refused(amount):
    with pytest.raises(EventInvalid) as info:
        parse_event(invoice_event(amount))
    assert "amount_due" in str(info.value)


def test_type_and_data_must_agree():
    event = subscription_event(type="invoice.paid")
    with pytest.raises(EventInvalid) as info:
        parse_event(event)
    assert "data.invoice" in str(info.value)


def test_unknown_type_and_bad_id_are_named():
    with pytest.raises(EventInvalid) as info:
        parse_event(subscription_event(type="charge.refunded", id="nope"))
    message = str(info.value)
    assert "type" in message and "id" in message


def test_organization_id_must_be_an_integer_not_a_string_or_bool():
    for bad in ("7", True, 0, None):
        event = subscription_event()
        event["data"]["organization_id"] = bad
        with pytest.raises(EventInvalid):
            parse_event(event)


def test_error_messages_do_not_echo_values():
    event = subscription_event()
    event["data"]["subscription"]["plan"] = {"secret": "Jane Roe"}
    with pytest.raises(EventInvalid) as info:
        parse_event(event)
    assert "Jane" not in str(info.value)


def test_non_object_body_is_refused():
    with pytest.raises(EventInvalid):
        parse_event(["evt_1"])
