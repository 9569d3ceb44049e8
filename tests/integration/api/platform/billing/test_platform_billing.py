"""POST /api/webhooks/billing with raw signed bytes through the real app, and billing.* isolation."""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
from sqlalchemy import func, select

from api.platform.billing import service
from api.platform.billing.events import parse_event
from api.platform.billing.models import BillingEvent, Invoice, Subscription
from api.platform.billing.signature import compute_signature, sign

SECRET = "whsec_test_one"  # tests/conftest.py settings
# Signature tests need no real organization: such events are stored as `unmatched`.
NO_ORG = 2_000_000_000
URL = "/api/webhooks/billing"


def new_id() -> str:
    return f"evt_{uuid.uuid4().hex}"


def subscription_event(
    org_id: int,
    *,
    status: str = "active",
    plan: str = "growth",
    created: int | None = None,
    event_id: str | None = None,
    kind: str = "subscription.updated",
) -> dict:
    return {
        "id": event_id or new_id(),
        "type": kind,
        "created": created or int(time.time()),
        "data": {
            "organization_id": org_id,
            "subscription": {"plan": plan, "status": status, "current_period_end": 1_800_000_000},
        },
    }


def invoice_event(
    org_id: int,
    invoice_id: str,
    amount: str,
    status: str = "open",
    kind: str = "invoice.created",
    created: int | None = None,
) -> dict:
    return {
        "id": new_id(),
        "type": kind,
        "created": created or int(time.time()),
        "data": {
            "organization_id": org_id,
            "invoice": {
                "id": invoice_id,
                "amount_due": amount,
                "currency": "usd",
                "status": status,
                "period_start": 1_760_000_000,
                "period_end": 1_762_592_000,
            },
        },
    }


def post(http, body: bytes, header: str | None):
    headers = {"Content-Type": "application/json"}
    if header is not None:
        headers["Billing-Signature"] = header
    return http.post(URL, content=body, headers=headers)


def send(http, event: dict, *, secrets=(SECRET,), timestamp: int | None = None):
    body = json.dumps(event).encode()
    return post(http, body, sign(body, secrets, timestamp or int(time.time())))


def stored(services, event_id: str) -> int:
    with services.database.session() as db:
        return db.scalar(select(func.count()).select_from(BillingEvent).where(BillingEvent.event_id == event_id))


def test_valid_event_is_stored_and_updates_the_subscription(http, services, make_member):
    member = make_member()
    event = subscription_event(member.organization_id, kind="subscription.created")
    r = send(http, event)
    assert r.status_code == 200
    assert r.json() == {"received": True, "duplicate": False, "eventId": event["id"]}
    sub = member.rpc.query("billing.subscription").data
    assert sub["plan"] == "growth" and sub["status"] == "active"
    assert sub["currentPeriodEnd"].startswith("2027-01-15")
    events = member.rpc.query("billing.events", {}).data["items"]
    assert [(e["eventId"], e["status"]) for e in events] == [(event["id"], "applied")]


def test_replay_is_answered_as_duplicate_and_changes_nothing(http, services, make_member):
    member = make_member()
    event = subscription_event(member.organization_id, status="active")
    assert send(http, event).json()["duplicate"] is False
    replay = dict(event, data={**event["data"], "subscription": {"plan": "enterprise", "status": "canceled"}})
    r = send(http, replay)
    assert r.status_code == 200 and r.json() == {"received": True, "duplicate": True}
    assert member.rpc.query("billing.subscription").data["status"] == "active"
    assert stored(services, event["id"]) == 1


def test_tampered_body_wrong_secret_and_missing_header_are_refused_and_nothing_stored(http, services, make_member):
    member = make_member()
    event = subscription_event(member.organization_id)
    body = json.dumps(event).encode()
    header = sign(body, [SECRET], int(time.time()))
    tampered = body.replace(b"growth", b"gratis")
    cases = {
        "tampered": post(http, tampered, header),
        "wrong secret": post(http, body, sign(body, ["whsec_wrong"], int(time.time()))),
        "missing": post(http, body, None),
        "garbage": post(http, body, "v1=deadbeef"),
    }
    assert {name: r.status_code for name, r in cases.items()} == dict.fromkeys(cases, 400)
    assert cases["tampered"].json()["error"] == "signature_mismatch"
    assert cases["wrong secret"].json()["error"] == "signature_mismatch"
    assert cases["missing"].json()["error"] == "missing_signature"
    assert cases["garbage"].json()["error"] == "malformed_signature"
    assert stored(services, event["id"]) == 0
    assert member.rpc.query("billing.subscription").code == "NOT_FOUND"


@pytest.mark.parametrize("skew,accepted", [(-301, False), (301, False), (-3600, False), (-290, True), (290, True)])
def test_timestamp_tolerance_is_300_seconds_both_ways(http, services, skew, accepted):
    event = subscription_event(NO_ORG)
    r = send(http, event, timestamp=int(time.time()) + skew)
    assert r.status_code == (200 if accepted else 400)
    if not accepted:
        assert r.json()["error"] == "timestamp_out_of_tolerance"
    assert stored(services, event["id"]) == (1 if accepted else 0)


def test_rotated_secrets_any_configured_secret_matches(http, services, monkeypatch):
    monkeypatch.setattr(services.settings, "billing_webhook_secret", f"whsec_next, {SECRET}")
    org = NO_ORG
    assert send(http, subscription_event(org), secrets=["whsec_next"]).status_code == 200
    assert send(http, subscription_event(org), secrets=[SECRET]).status_code == 200
    assert send(http, subscription_event(org), secrets=["whsec_retired"]).status_code == 400


def test_several_v1_values_one_of_which_matches(http):
    event = subscription_event(NO_ORG)
    body = json.dumps(event).encode()
    t = int(time.time())
    header = f"t={t},v1={compute_signature('whsec_other', t, body)},v1={compute_signature(SECRET, t, body)}"
    assert post(http, body, header).status_code == 200


@pytest.mark.parametrize(
    "where,value",
    [
        ("key", "patient_name"),
        ("key", "Date-Of-Birth"),
        ("key", "memberId"),
        ("key", "ICD10"),
        ("value", "123-45-6789"),
    ],
)
def test_events_carrying_phi_are_refused_without_echo_and_nothing_stored(http, services, make_member, where, value):
    member = make_member()
    event = subscription_event(member.organization_id)
    secret_value = "Jane Roe 1961-02-03"
    if where == "key":
        event["data"]["subscription"]["metadata"] = {value: secret_value}
    else:
        event["data"]["subscription"]["note"] = f"ref {value}"
    r = send(http, event)
    assert r.status_code == 422
    assert r.json()["error"] == "phi_refused"
    assert secret_value not in r.text and "123-45-6789" not in r.text
    assert stored(services, event["id"]) == 0
    assert member.rpc.query("billing.subscription").code == "NOT_FOUND"


def test_oversized_body_is_413(http):
    body = json.dumps({"id": new_id(), "pad": "x" * (256 * 1024)}).encode()
    r = post(http, body, sign(body, [SECRET], int(time.time())))
    assert r.status_code == 413


def test_malformed_json_with_valid_signature_is_400(http):
    body = b'{"id": "evt_1", "type": '
    r = post(http, body, sign(body, [SECRET], int(time.time())))
    assert r.status_code == 400 and r.json()["error"] == "malformed_json"


def test_well_formed_json_that_is_not_an_event_is_400_naming_fields(http):
    body = json.dumps({"id": "evt_x", "type": "charge.refunded", "created": 1, "data": {}}).encode()
    r = post(http, body, sign(body, [SECRET], int(time.time())))
    assert r.status_code == 400 and r.json()["error"] == "invalid_event"
    assert "type" in r.json()["message"]


def test_unconfigured_webhook_is_503_and_health_does_not_tell(http, services, monkeypatch):
    monkeypatch.setattr(services.settings, "billing_webhook_secret", None)
    body = json.dumps(subscription_event(1)).encode()
    r = post(http, body, sign(body, [SECRET], int(time.time())))
    assert r.status_code == 503 and r.json()["message"] == "billing webhook is not configured"
    assert "billing" not in http.get("/api/health").text.lower()


def test_invoices_are_exact_and_follow_their_events(http, make_member):
    member = make_member()
    org = member.organization_id
    invoice_id = f"in_{uuid.uuid4().hex[:12]}"
    t = int(time.time())
    assert send(http, invoice_event(org, invoice_id, "1250.10", created=t - 10)).status_code == 200
    assert send(http, invoice_event(org, invoice_id, "1250.10", "paid", "invoice.paid", created=t)).status_code == 200
    items = member.rpc.query("billing.invoices", {}).data["items"]
    assert len(items) == 1
    assert items[0]["amountDue"] == "1250.10" and items[0]["status"] == "paid" and items[0]["invoiceId"] == invoice_id


def test_an_older_event_delivered_late_does_not_overwrite_newer_state(http, make_member):
    member = make_member()
    t = int(time.time())
    assert send(http, subscription_event(member.organization_id, status="past_due", created=t)).status_code == 200
    late = subscription_event(member.organization_id, status="active", created=t - 60)
    assert send(http, late).status_code == 200
    assert member.rpc.query("billing.subscription").data["status"] == "past_due"
    statuses = {e["eventId"]: e["status"] for e in member.rpc.query("billing.events", {}).data["items"]}
    assert statuses[late["id"]] == "stale"


def test_unknown_organization_is_stored_unmatched_and_visible_to_no_tenant(http, services, make_member):
    event = subscription_event(NO_ORG)
    assert send(http, event).status_code == 200
    with services.database.session() as db:
        row = db.scalar(select(BillingEvent).where(BillingEvent.event_id == event["id"]))
        assert row.status == "unmatched" and row.organization_id is None
    member = make_member()
    assert event["id"] not in {e["eventId"] for e in member.rpc.query("billing.events", {}).data["items"]}


def test_billing_procedures_are_isolated_between_organizations(http, make_member):
    a, b = make_member(), make_member()
    assert send(http, subscription_event(a.organization_id, plan="enterprise")).status_code == 200
    assert send(http, invoice_event(a.organization_id, f"in_{uuid.uuid4().hex[:12]}", "99.00")).status_code == 200
    assert a.rpc.query("billing.subscription").data["plan"] == "enterprise"
    assert b.rpc.query("billing.subscription").code == "NOT_FOUND"
    assert b.rpc.query("billing.invoices", {}).data["items"] == []
    assert b.rpc.query("billing.events", {}).data["items"] == []
    assert len(a.rpc.query("billing.events", {}).data["items"]) == 2


def test_billing_events_need_the_audit_permission(make_member):
    specialist = make_member(role="specialist")
    assert specialist.rpc.query("billing.events", {}).code == "FORBIDDEN"
    assert specialist.rpc.query("billing.invoices", {}).status == 200
    assert make_member(role="auditor").rpc.query("billing.events", {}).status == 200


def test_concurrent_deliveries_of_one_event_store_it_once(services, make_member):
    """Two deliveries racing past the pre-check: the unique constraint decides, one is a duplicate."""
    org = make_member().organization_id
    for _ in range(3):
        event = parse_event(subscription_event(org))
        barrier = threading.Barrier(2)
        results = []

        def deliver(barrier=barrier, results=results, event=event):
            barrier.wait()
            results.append(service.record_event(services.database, event))

        threads = [threading.Thread(target=deliver) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(r.duplicate for r in results) == [False, True]
        assert stored(services, event.id) == 1
    with services.database.session() as db:
        assert db.scalar(select(func.count()).select_from(Subscription).where(Subscription.organization_id == org)) == 1
        assert db.scalar(select(func.count()).select_from(Invoice).where(Invoice.organization_id == org)) == 0


def test_a_delivery_blocked_behind_an_uncommitted_copy_becomes_a_duplicate(services, make_member):
    """Deterministic race: the first copy is inserted but not committed when the second arrives.

    On PostgreSQL the second passes the pre-check, blocks on the unique index and
    gets an IntegrityError once the first commits; on SQLite it waits at BEGIN
    IMMEDIATE and then sees the row. Either way: one stored row, a duplicate answer.
    """
    org = make_member().organization_id
    event = parse_event(subscription_event(org))
    first = services.database.session(write=True)
    try:
        first.add(
            BillingEvent(
                event_id=event.id,
                type=event.type,
                organization_id=org,
                status="applied",
                event_created_at=event.created_at,
                payload={},
                payload_sha256="0" * 64,
            )
        )
        first.flush()
        results = []
        second = threading.Thread(target=lambda: results.append(service.record_event(services.database, event)))
        second.start()
        time.sleep(0.3)  # let the second delivery reach the lock
        assert second.is_alive()
        first.commit()
    finally:
        first.close()
    second.join(30)
    assert [r.duplicate for r in results] == [True]
    assert stored(services, event.id) == 1
