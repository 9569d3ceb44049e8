"""comms.* over the wire (sandbox transport), on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from api.denials.cases.models import CaseEvent
from api.platform.audit.models import AuditEvent
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages

BODY = "Re: patient Jane Q Doe, DOB 1961-04-02, member W123456789.\r\nPlease reprocess the claim."
SUBJECT = "Appeal for Jane Q Doe"


def _send(member, case_id, **fields):
    payload = {
        "caseId": case_id,
        "channel": "fax",
        "recipient": "(800) 555-0142",
        "subject": SUBJECT,
        "body": BODY,
        **fields,
    }
    return member.rpc.mutation("comms.send", payload)


@pytest.fixture
def member_and_case(services, make_member):
    member = make_member(role="specialist")
    return member, make_case(services, member.organization_id, member.client_id)


def test_send_through_the_sandbox_is_delivered_with_its_digest_and_history(services, member_and_case):
    member, case_id = member_and_case
    sent = _send(member, case_id).data
    rendered = (
        b"Channel: fax\nTo: 8005550142\nSubject: Appeal for Jane Q Doe\n\n"
        b"Re: patient Jane Q Doe, DOB 1961-04-02, member W123456789.\nPlease reprocess the claim."
    )
    assert sent["contentDigest"] == hashlib.sha256(rendered).hexdigest()
    assert sent["contentBytes"] == len(rendered)
    assert (sent["status"], sent["transport"], sent["recipient"]) == ("delivered", "sandbox", "8005550142")
    assert [s["status"] for s in sent["statusHistory"]] == ["queued", "sent", "delivered"]
    assert sent["sentAt"] and sent["deliveredAt"] and sent["failedAt"] is None
    assert sent["transportReference"] == f"SBX-{sent['id']}-{sent['contentDigest'][:12]}"
    assert sent["transportRequest"] == {
        "transport": "sandbox",
        "messageId": sent["id"],
        "channel": "fax",
        "recipient": "8005550142",
        "contentDigest": sent["contentDigest"],
        "contentBytes": len(rendered),
    }
    assert sent["transportResponse"]["code"] == "SBX-DELIVERED"
    assert sent["sentByUserId"] == member.user_id and sent["body"] == BODY
    assert member.rpc.query("comms.get", {"id": sent["id"]}).data == sent
    with services.database.transaction() as db:
        events = db.scalars(select(CaseEvent).where(CaseEvent.case_id == case_id)).all()
    assert [(e.kind, e.details["messageId"], e.details["status"]) for e in events] == [
        ("message_sent", sent["id"], "delivered")
    ]
    assert "Jane" not in str(events[0].details)


def test_sandbox_failures_are_recorded_as_failed(member_and_case):
    member, case_id = member_and_case
    rejected = _send(member, case_id, channel="portal", recipient="sandbox-reject").data
    assert rejected["status"] == "failed" and rejected["transportReference"] is None
    assert [s["status"] for s in rejected["statusHistory"]] == ["queued", "failed"]
    assert "rejected" in rejected["failureReason"] and rejected["sentAt"] is None
    lost = _send(member, case_id, recipient="000-000-0000").data
    assert [s["status"] for s in lost["statusHistory"]] == ["queued", "sent", "failed"]
    assert lost["sentAt"] and lost["failedAt"] and lost["deliveredAt"] is None


def test_a_live_transport_is_refused_and_nothing_is_stored(member_and_case):
    member, case_id = member_and_case
    refused = _send(member, case_id, transport="live")
    assert refused.code == "PRECONDITION_FAILED"
    assert refused.error["message"] == "no live transport is configured; only sandbox"
    assert member.rpc.query("comms.list", {}).data["items"] == []


def test_a_closed_case_is_precondition_failed(services, make_member):
    member = make_member()
    closed = make_case(services, member.organization_id, member.client_id, state="closed")
    result = _send(member, closed)
    assert result.code == "PRECONDITION_FAILED" and "closed" in result.error["message"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"channel": "pigeon"}, "channel"),
        ({"recipient": "555-0142"}, "recipient"),
        ({"channel": "portal", "recipient": "has spaces"}, "recipient"),
        ({"channel": "letter", "recipient": "one line only"}, "recipient"),
        ({"subject": "two\nlines"}, "subject"),
        ({"subject": ""}, "subject"),
        ({"body": ""}, "body"),
        ({"body": "nul \x00"}, "body"),
        ({"body": "x" * 100_001}, "body"),
        ({"transport": "carrier"}, "transport"),
        ({"caseId": 0}, "caseId"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(member_and_case, change, field):
    member, case_id = member_and_case
    result = _send(member, case_id, **change)
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"]
    assert "Jane" not in result.error["message"]


def test_list_filters_pages_and_leaves_bodies_to_get(services, member_and_case):
    member, case_id = member_and_case
    other_case = make_case(services, member.organization_id, member.client_id)
    fax = _send(member, case_id).data
    letter = _send(member, other_case, channel="letter", recipient="Appeals Dept\nPO Box 1\nCity ST 00000").data
    failed = _send(member, case_id, channel="portal", recipient="sandbox-reject").data

    def ids(**filters):
        return [m["id"] for m in collect_pages(member.rpc, "comms.list", filters, limit=1)]

    assert ids() == [failed["id"], letter["id"], fax["id"]]
    assert ids(caseId=case_id) == [failed["id"], fax["id"]]
    assert ids(channel="letter") == [letter["id"]]
    assert ids(status="failed") == [failed["id"]]
    assert ids(status="delivered", caseId=case_id) == [fax["id"]]
    listed = member.rpc.query("comms.list", {}).data["items"]
    assert all("body" not in m for m in listed)
    assert member.rpc.query("comms.get", {"id": letter["id"]}).data["recipient"] == (
        "Appeals Dept\nPO Box 1\nCity ST 00000"
    )
    assert member.rpc.query("comms.list", {"status": "lost"}).code == "BAD_REQUEST"


def test_other_tenants_cases_and_messages_are_not_found(services, make_member):
    a, b = make_member(), make_member()
    a_case = make_case(services, a.organization_id, a.client_id)
    sent = _send(a, a_case).data
    assert _send(b, a_case).code == "NOT_FOUND"
    assert b.rpc.query("comms.get", {"id": sent["id"]}).code == "NOT_FOUND"
    assert b.rpc.query("comms.list", {}).data["items"] == []
    crossing = b.rpc.as_(b.token, a.client_id)
    assert crossing.query("comms.get", {"id": sent["id"]}).code in ("FORBIDDEN", "NOT_FOUND")
    assert crossing.mutation("comms.send", {}).code in ("FORBIDDEN", "NOT_FOUND")


def test_read_only_members_read_but_cannot_send(services, make_member):
    auditor = make_member(role="auditor")
    case_id = make_case(services, auditor.organization_id, auditor.client_id)
    assert _send(auditor, case_id).code == "FORBIDDEN"
    assert auditor.rpc.query("comms.list", {}).data["items"] == []


def test_the_body_and_subject_never_reach_the_audit_log(services, member_and_case):
    member, case_id = member_and_case
    sent = _send(member, case_id).data
    with services.database.transaction() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.organization_id == member.organization_id)).all()
        dumped = " ".join(str(vars(r)) for r in rows)
    logged = [r for r in rows if r.procedure == "comms.send"]
    assert [(r.target_type, r.target_id) for r in logged] == [("comms_message", str(sent["id"]))]
    assert logged[0].after_digest is not None
    for secret in ("Jane", "W123456789", "1961-04-02", "reprocess the claim"):
        assert secret not in dumped
