"""Every mutation is audited in a hash chain; tampering is detected."""

from __future__ import annotations

from sqlalchemy import delete, select, update

from api.platform.audit.models import AuditEvent


def test_mutations_append_chained_events(make_member):
    admin = make_member()
    admin.rpc.mutation("organizations.addClient", {"name": "East Wing"}).data
    admin.rpc.mutation("auth.createApiKey", {"name": "feed"}).data
    events = admin.rpc.query("audit.list").data["items"]
    assert [e["procedure"] for e in events][:2] == ["auth.createApiKey", "organizations.addClient"]
    assert events[0]["prevHash"] == events[1]["hash"]
    assert events[0]["actorUserId"] == admin.user_id and events[0]["actorKind"] == "session"
    assert admin.rpc.query("audit.get", {"id": events[0]["id"]}).data["hash"] == events[0]["hash"]
    report = admin.rpc.query("audit.verifyChain").data
    assert report["valid"] and report["events"] >= 2


def test_failed_mutation_writes_nothing(make_member):
    admin = make_member()
    before = admin.rpc.query("audit.verifyChain").data["events"]
    assert admin.rpc.mutation("organizations.addClient", {"name": "General Hospital"}).code == "CONFLICT"
    assert admin.rpc.query("audit.verifyChain").data["events"] == before


def test_audit_holds_digests_not_values(services, make_member):
    admin = make_member()
    admin.rpc.mutation(
        "organizations.inviteMember",
        {"email": "jane.patient@example.test", "role": "analyst", "displayName": "Jane Patient"},
    ).data
    with services.database.transaction() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.organization_id == admin.organization_id)).all()
        dumped = " ".join(str(vars(r)) for r in rows)
    assert "Jane" not in dumped and "jane.patient" not in dumped


def test_tampering_is_detected(services, make_member):
    admin = make_member()
    for name in ("A Wing", "B Wing", "C Wing"):
        admin.rpc.mutation("organizations.addClient", {"name": name}).data
    scope = f"org:{admin.organization_id}"
    with services.database.transaction() as db:
        db.execute(update(AuditEvent).where(AuditEvent.scope == scope, AuditEvent.seq == 2).values(target_id="999"))
    report = admin.rpc.query("audit.verifyChain").data
    assert report == {**report, "valid": False, "firstBrokenSeq": 2}
    assert "altered" in report["problem"]


def test_deleting_an_event_is_detected(services, make_member):
    admin = make_member()
    for name in ("A Wing", "B Wing", "C Wing"):
        admin.rpc.mutation("organizations.addClient", {"name": name}).data
    scope = f"org:{admin.organization_id}"
    with services.database.transaction() as db:
        db.execute(delete(AuditEvent).where(AuditEvent.scope == scope, AuditEvent.seq == 3))
    report = admin.rpc.query("audit.verifyChain").data
    assert report["valid"] is False and report["firstBrokenSeq"] == 3


def test_other_organizations_events_are_invisible(make_member):
    a = make_member()
    b = make_member()
    a.rpc.mutation("organizations.addClient", {"name": "Secret Wing"}).data
    a_event = a.rpc.query("audit.list").data["items"][0]
    assert b.rpc.query("audit.get", {"id": a_event["id"]}).code == "NOT_FOUND"
    assert all(e["organizationId"] == b.organization_id for e in b.rpc.query("audit.list").data["items"])
