"""payerInteractions.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from api.denials.cases.models import CaseEvent
from api.platform.audit.models import AuditEvent
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages

SUMMARY = "Spoke with rep about patient Jane Q Doe, DOB 1961-04-02, member W123456789"


def _at(days_ago: float = 0) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()


def _log(member, **fields):
    payload = {"channel": "phone", "occurredAt": _at(1), "summary": SUMMARY, "outcome": "reprocessing", **fields}
    return member.rpc.mutation("payerInteractions.log", payload)


def test_log_on_a_case_records_who_defaults_and_appends_a_case_event(services, make_member):
    member = make_member(role="specialist")
    case_id = make_case(services, member.organization_id, member.client_id, claim_key="PCN-ABC-1", payer="ACME HEALTH")
    out = _log(
        member,
        caseId=case_id,
        direction="outbound",
        payerRepresentative="Rep 4411",
        referenceNumber="REF-99812",
        nextStep="Call back for the reprocessing status",
        nextStepOn=(datetime.now(UTC) + timedelta(days=5)).date().isoformat(),
    ).data
    assert out["caseId"] == case_id and out["claimKey"] == "PCN-ABC-1" and out["payer"] == "ACME HEALTH"
    assert out["loggedByUserId"] == member.user_id and out["summary"] == SUMMARY
    assert (out["channel"], out["direction"], out["outcome"]) == ("phone", "outbound", "reprocessing")
    with services.database.transaction() as db:
        events = db.scalars(select(CaseEvent).where(CaseEvent.case_id == case_id)).all()
    assert [(e.kind, e.actor_user_id) for e in events] == [("payer_interaction", member.user_id)]
    assert events[0].details["interactionId"] == out["id"] and SUMMARY not in str(events[0].details)


def test_log_on_a_claim_without_a_case_needs_the_payer(make_member):
    member = make_member()
    refused = _log(member, claimKey="PCN-NO-CASE")
    assert refused.code == "BAD_REQUEST" and "'payer'" in refused.error["message"]
    out = _log(member, claimKey="PCN-NO-CASE", payer="BLUEPEAK MUTUAL", channel="portal").data
    assert out["caseId"] is None and out["claimKey"] == "PCN-NO-CASE" and out["payer"] == "BLUEPEAK MUTUAL"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"occurredAt": (datetime.now(UTC) + timedelta(days=1)).isoformat()}, "occurredAt"),
        ({"occurredAt": "2026-01-05T10:00:00"}, "occurredAt"),  # no time zone
        ({"channel": "carrier pigeon"}, "channel"),
        ({"outcome": "great"}, "outcome"),
        ({"summary": ""}, "summary"),
        ({"summary": "nul \x00 byte"}, "summary"),
        ({"nextStepOn": "2000-01-01", "nextStep": "x"}, "nextStepOn"),
        ({"nextStepOn": "2099-01-01"}, "nextStep"),
        ({"claimKey": "PCN-SOMETHING-ELSE"}, "claimKey"),
        ({"caseId": None}, "caseId"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(services, make_member, change, field):
    member = make_member()
    case_id = make_case(services, member.organization_id, member.client_id)
    result = _log(member, **{"caseId": case_id, **change})
    assert result.code == "BAD_REQUEST", result.body
    assert f"'{field}'" in result.error["message"] or any(field in i["path"] for i in result.error["data"]["issues"])
    assert SUMMARY not in result.error["message"]


def test_unknown_and_other_tenants_cases_are_not_found(services, make_member):
    a, b = make_member(), make_member()
    b_case = make_case(services, b.organization_id, b.client_id)
    assert _log(a, caseId=b_case).code == "NOT_FOUND"
    assert a.rpc.query("payerInteractions.forCase", {"caseId": b_case}).code == "NOT_FOUND"
    assert a.rpc.query("payerInteractions.forCase", {"caseId": 2**62}).code == "NOT_FOUND"


def test_list_filters_and_pages(services, make_member):
    member = make_member()
    case_1 = make_case(services, member.organization_id, member.client_id, payer="ACME HEALTH")
    case_2 = make_case(services, member.organization_id, member.client_id, payer="BLUEPEAK MUTUAL")
    first = _log(member, caseId=case_1, occurredAt=_at(10)).data
    second = _log(member, caseId=case_1, channel="fax", occurredAt=_at(3)).data
    third = _log(member, caseId=case_2, channel="portal", occurredAt=_at(1)).data

    def ids(**filters):
        return [i["id"] for i in collect_pages(member.rpc, "payerInteractions.list", filters, limit=1)]

    assert ids() == [third["id"], second["id"], first["id"]]
    assert ids(payer="ACME HEALTH") == [second["id"], first["id"]]
    assert ids(channel="portal") == [third["id"]]
    assert ids(caseId=case_1) == [second["id"], first["id"]]
    today = datetime.now(UTC).date()
    assert ids(occurredFrom=(today - timedelta(days=5)).isoformat()) == [third["id"], second["id"]]
    assert ids(occurredTo=(today - timedelta(days=5)).isoformat()) == [first["id"]]
    assert ids(
        occurredFrom=(today - timedelta(days=3)).isoformat(), occurredTo=(today - timedelta(days=3)).isoformat()
    ) == [second["id"]]
    for_case = collect_pages(member.rpc, "payerInteractions.forCase", {"caseId": case_1}, limit=1)
    assert [i["id"] for i in for_case] == [second["id"], first["id"]]


def test_list_bad_filters_are_bad_request(make_member):
    member = make_member()
    reversed_range = member.rpc.query(
        "payerInteractions.list", {"occurredFrom": "2026-03-02", "occurredTo": "2026-03-01"}
    )
    assert reversed_range.code == "BAD_REQUEST" and "occurredFrom" in reversed_range.error["message"]
    assert member.rpc.query("payerInteractions.list", {"cursor": "nonsense"}).code == "BAD_REQUEST"
    assert member.rpc.query("payerInteractions.list", {"payer": "a\x00b"}).code == "BAD_REQUEST"


def test_other_tenants_interactions_are_invisible_and_crossing_is_refused(services, make_member):
    a, b = make_member(), make_member()
    case_id = make_case(services, a.organization_id, a.client_id)
    _log(a, caseId=case_id).data
    assert b.rpc.query("payerInteractions.list", {}).data["items"] == []
    crossing = b.rpc.as_(b.token, a.client_id)
    assert crossing.query("payerInteractions.list", {}).code in ("FORBIDDEN", "NOT_FOUND")
    assert crossing.mutation("payerInteractions.log", {}).code in ("FORBIDDEN", "NOT_FOUND")


def test_read_only_roles_cannot_log(services, make_member):
    auditor = make_member(role="auditor")
    case_id = make_case(services, auditor.organization_id, auditor.client_id)
    assert _log(auditor, caseId=case_id).code == "FORBIDDEN"


def test_the_summary_and_claim_key_never_reach_the_audit_log(services, make_member):
    member = make_member()
    case_id = make_case(services, member.organization_id, member.client_id, claim_key="PCN-SECRET-77")
    out = _log(member, caseId=case_id, nextStep="Fax the records of Jane Q Doe").data
    with services.database.transaction() as db:
        rows = db.scalars(select(AuditEvent).where(AuditEvent.organization_id == member.organization_id)).all()
        dumped = " ".join(str(vars(r)) for r in rows)
    logged = [r for r in rows if r.procedure == "payerInteractions.log"]
    assert [(r.target_type, r.target_id) for r in logged] == [("payer_interaction", str(out["id"]))]
    assert logged[0].after_digest is not None
    for secret in ("Jane", "W123456789", "1961-04-02", "PCN-SECRET-77", "Fax the records"):
        assert secret not in dumped
