"""rebilling.* over RPC: lifecycle, the timely-filing check at create and at submission, tenancy."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sqlalchemy import update

from api.infra.db.tenant_filter import TenantScope, set_scope
from api.money.rebilling.models import Rebill
from tests.support.scheduled_cases import make_case


def _today() -> date:
    return datetime.now(UTC).date()


def test_a_rebill_in_time_goes_from_draft_to_accepted(make_member, services):
    m = make_member()
    service_date = _today() - timedelta(days=10)
    case_id = make_case(services, m, payer_class="commercial", payer="Acme Health", service_date=service_date)
    out = m.rpc.mutation("rebilling.createRebill", {"caseId": case_id, "kind": "corrected", "frequencyCode": "7"}).data
    assert (out["state"], out["payer"], out["serviceDate"], out["filedLate"]) == (
        "draft",
        "Acme Health",
        service_date.isoformat(),
        False,
    )
    # commercial default: 90 calendar days from the date of service, no roll
    assert out["timelyFilingDueOn"] == (service_date + timedelta(days=90)).isoformat()
    assert out["timelyFilingDays"] == 90
    rid = out["id"]
    assert m.rpc.mutation("rebilling.markSubmitted", {"id": rid}).code == "PRECONDITION_FAILED"  # still a draft
    assert m.rpc.mutation("rebilling.markReady", {"id": rid}).data["state"] == "ready"
    submitted = m.rpc.mutation("rebilling.markSubmitted", {"id": rid, "payerReference": "PCN-1"}).data
    assert (submitted["state"], submitted["submittedOn"]) == ("submitted", _today().isoformat())
    assert m.rpc.mutation("rebilling.recordResponse", {"id": rid, "outcome": "accepted"}).data["state"] == "accepted"
    assert m.rpc.mutation("rebilling.recordResponse", {"id": rid, "outcome": "rejected"}).code == "PRECONDITION_FAILED"
    # the case's timely-filing deadline is met by the submission
    deadlines = m.rpc.query("deadlines.forCase", {"caseId": case_id}).data["items"]
    assert [(d["level"], d["status"]) for d in deadlines] == [("timely_filing", "met")]
    events = m.rpc.query("audit.list", {"targetType": "rebill", "targetId": str(rid)}).data["items"]
    assert {e["procedure"] for e in events} == {
        "rebilling.createRebill",
        "rebilling.markReady",
        "rebilling.markSubmitted",
        "rebilling.recordResponse",
    }


def test_past_timely_filing_needs_a_reason_at_create(make_member, services):
    m = make_member()
    # 2024-01-01 + 90 = 2024-03-31
    case_id = make_case(services, m, payer_class="commercial", service_date=date(2024, 1, 1))
    body = {"caseId": case_id, "kind": "corrected", "frequencyCode": "7"}
    r = m.rpc.mutation("rebilling.createRebill", body)
    assert r.code == "PRECONDITION_FAILED"
    assert "90 days" in r.error["message"] and "2024-03-31" in r.error["message"]
    out = m.rpc.mutation("rebilling.createRebill", {**body, "overrideReason": "Retro eligibility update"}).data
    assert out["filedLate"] is True and out["timelyFilingDueOn"] == "2024-03-31"
    m.rpc.mutation("rebilling.markReady", {"id": out["id"]}).data
    # the reason given at create covers the submission
    assert m.rpc.mutation("rebilling.markSubmitted", {"id": out["id"]}).data["state"] == "submitted"


def test_past_timely_filing_at_submission_needs_a_reason(make_member, services):
    m = make_member()
    out = m.rpc.mutation(
        "rebilling.createRebill",
        {
            "claimKey": "ACCT-1",
            "payer": "Medicare Part B",
            "payerClass": "medicare",
            "serviceDate": (_today() - timedelta(days=30)).isoformat(),
            "kind": "resubmission",
            "frequencyCode": "7",
        },
    ).data
    m.rpc.mutation("rebilling.markReady", {"id": out["id"]}).data
    # time passes: the limit ran out yesterday
    with services.database.transaction() as db:
        set_scope(db, TenantScope(m.organization_id, m.client_id))
        db.execute(
            update(Rebill).where(Rebill.id == out["id"]).values(timely_filing_due_on=_today() - timedelta(days=1))
        )
    r = m.rpc.mutation("rebilling.markSubmitted", {"id": out["id"]})
    assert r.code == "PRECONDITION_FAILED" and (_today() - timedelta(days=1)).isoformat() in r.error["message"]
    ok = m.rpc.mutation("rebilling.markSubmitted", {"id": out["id"], "overrideReason": "payer outage"}).data
    assert (ok["state"], ok["filedLate"]) == ("submitted", True)


def test_bad_input(make_member, services):
    m = make_member()
    base = {"kind": "corrected", "frequencyCode": "7"}
    assert m.rpc.mutation("rebilling.createRebill", base).code == "BAD_REQUEST"  # neither case nor claim
    assert m.rpc.mutation("rebilling.createRebill", {**base, "claimKey": "A"}).code == "BAD_REQUEST"  # no payer
    claim = {**base, "claimKey": "A", "payer": "P", "payerClass": "commercial"}
    assert m.rpc.mutation("rebilling.createRebill", claim).code == "BAD_REQUEST"  # no date of service
    future = {**claim, "serviceDate": (_today() + timedelta(days=1)).isoformat()}
    assert m.rpc.mutation("rebilling.createRebill", future).code == "BAD_REQUEST"
    assert m.rpc.mutation("rebilling.createRebill", {**claim, "frequencyCode": "1"}).code == "BAD_REQUEST"
    assert m.rpc.mutation("rebilling.createRebill", {**claim, "kind": "appeal"}).code == "BAD_REQUEST"
    assert m.rpc.mutation("rebilling.createRebill", {**base, "caseId": 10**12}).code == "NOT_FOUND"
    assert m.rpc.mutation("rebilling.markReady", {"id": 10**12}).code == "NOT_FOUND"
    later = (_today() + timedelta(days=1)).isoformat()
    assert m.rpc.mutation("rebilling.markSubmitted", {"id": 1, "submittedOn": later}).code == "BAD_REQUEST"
    assert m.rpc.query("rebilling.listRebills", {"cursor": "zz"}).code == "BAD_REQUEST"


def test_list_filters_paginates_and_stays_in_the_tenant(make_member, services):
    m, stranger = make_member(), make_member()
    case_id = make_case(services, m, payer_class="commercial", service_date=_today() - timedelta(days=5))
    ids = [
        m.rpc.mutation("rebilling.createRebill", {"caseId": case_id, "kind": kind, "frequencyCode": "7"}).data["id"]
        for kind in ("corrected", "resubmission", "corrected")
    ]
    m.rpc.mutation("rebilling.markReady", {"id": ids[0]}).data
    first = m.rpc.query("rebilling.listRebills", {"limit": 2}).data
    second = m.rpc.query("rebilling.listRebills", {"limit": 2, "cursor": first["nextCursor"]}).data
    assert [i["id"] for i in first["items"] + second["items"]] == ids[::-1] and second["nextCursor"] is None
    assert [i["id"] for i in m.rpc.query("rebilling.listRebills", {"state": "ready"}).data["items"]] == [ids[0]]
    assert [i["id"] for i in m.rpc.query("rebilling.listRebills", {"kind": "resubmission"}).data["items"]] == [ids[1]]
    assert len(m.rpc.query("rebilling.listRebills", {"caseId": case_id}).data["items"]) == 3
    assert stranger.rpc.query("rebilling.listRebills", {}).data["items"] == []
    assert stranger.rpc.mutation("rebilling.markReady", {"id": ids[1]}).code == "NOT_FOUND"
    body = {"caseId": case_id, "kind": "corrected", "frequencyCode": "8"}
    assert stranger.rpc.mutation("rebilling.createRebill", body).code == "NOT_FOUND"
