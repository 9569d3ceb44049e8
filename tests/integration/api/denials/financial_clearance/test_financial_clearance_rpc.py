"""financialClearance.* over the real RPC wire, on SQLite and PostgreSQL: a Medicare claim whose line
needs a prior authorization (64612, Medicare's hospital OPD list, 42 CFR 419.83) is flagged before
submission, then clears once the approval is recorded, with the patient's estimate from the sandbox
payer's 271; inactive coverage, no check and a plan that ended block; a newer check or authorization
makes the clearance stale; other clients' ids are NOT_FOUND; bad input is BAD_REQUEST."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from api.platform.audit.models import AuditEvent
from tests.integration.api.denials.claims.conftest import claim_body

TODAY = datetime.now(UTC).date()  # the clients here have no time zone: their day is UTC's
SERVICE = TODAY + timedelta(days=10)  # checked today, on or before the service date
PAYER_ID = "SBXPAYER"


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _lines(*codes: str) -> list[dict]:
    # 64612 (on the OPD list since 2020-07-01): 2 units charged 1,400.00; 99213 (on no list): 200.00
    known = {
        "64612": {"procedureCode": "64612", "units": 2, "charge": "1400.00"},
        "99213": {"procedureCode": "99213", "charge": "200.00"},
    }
    return [{**known[c], "serviceDateFrom": SERVICE.isoformat()} for c in codes]


def _claim(member, patient: str, *codes: str, served: date = SERVICE) -> int:
    lines = [{**line, "serviceDateFrom": served.isoformat()} for line in _lines(*codes)]
    body = claim_body(
        f"FC-{uuid.uuid4().hex[:8]}",
        filingIndicator="MB",  # Medicare Part B: the platform list applies
        payer="SANDBOX HEALTH PLAN",
        payerId=PAYER_ID,
        patientRef=patient,
        statementFrom=served.isoformat(),
        statementTo=served.isoformat(),
        lines=lines,
    )
    return member.rpc.mutation("claims.create", body).data["id"]


def _patient() -> str:
    return f"pt_fc_{uuid.uuid4().hex[:8]}"


def _check(member, patient: str, member_id: str, service: date = SERVICE) -> dict:
    payload = {"patientRef": patient, "payerId": PAYER_ID, "memberId": member_id, "serviceDate": service.isoformat()}
    return member.rpc.mutation("eligibility.check", payload).data


def _clear(member, claim_id: int):
    return member.rpc.mutation("financialClearance.clear", {"claimId": claim_id})


def _status(member, claim_id: int) -> dict:
    return member.rpc.query("financialClearance.status", {"claimId": claim_id}).data


def _kinds(clearance: dict) -> list[str]:
    return [b["kind"] for b in clearance["blockers"]]


def test_a_missing_authorization_blocks_then_the_recorded_approval_clears(member, services):
    patient = _patient()
    claim_id = _claim(member, patient, "64612", "99213")
    assert _status(member, claim_id) == {"claimId": claim_id, "clearance": None, "stale": False, "staleBecause": []}
    check = _check(member, patient, "SBXACTIVE01")
    assert check["status"] == "active"

    blocked = _clear(member, claim_id).data
    assert (blocked["status"], blocked["eligibilityCheckId"], blocked["eligibilityStatus"]) == (
        "blocked",
        check["id"],
        "active",
    )
    [blocker] = blocked["blockers"]
    assert (blocker["kind"], blocker["lineNumber"], blocker["procedureCode"]) == ("authorization", 1, "64612")
    assert "line 1 (64612) needs a prior authorization" in blocker["message"]
    assert "42 CFR 419.83" in blocker["message"] and patient not in blocker["message"]
    # claims' own gate agrees (priorAuthorization's submission blocker)
    assert member.rpc.mutation("claims.review", {"id": claim_id}).data["state"] == "in_review"
    assert member.rpc.mutation("claims.requestSubmissionPreparation", {"id": claim_id}).code == "PRECONDITION_FAILED"

    auth = member.rpc.mutation("priorAuthorization.request", {"claimId": claim_id, "lineNumber": 1}).data
    approved = member.rpc.mutation(
        "priorAuthorization.record",
        {
            "id": auth["id"],
            "outcome": "approved",
            "authorizationNumber": "PA-445566",
            "approvedUnits": 2,
            "validFrom": (SERVICE - timedelta(days=9)).isoformat(),
            "validTo": (SERVICE + timedelta(days=80)).isoformat(),
        },
    ).data
    assert approved["state"] == "approved"
    stale = _status(member, claim_id)
    assert stale["clearance"]["id"] == blocked["id"] and stale["stale"] is True
    assert stale["staleBecause"] == [f"authorization request {auth['id']} became approved after the clearance"]

    cleared = _clear(member, claim_id).data
    assert (cleared["status"], cleared["blockers"], cleared["authorizationIds"]) == ("cleared", [], [auth["id"]])
    # By hand: no marts -> each line's charge is its allowed amount (a ceiling): 1,400.00 + 200.00 = 1,600.00.
    # The sandbox 271 (SBXACTIVE01): deductible still to meet 600.00 (EB*C ... 29), co-insurance 20 % (EB*A),
    # copay 25.00 (EB*B); out of pocket answered only as the annual 5,000.00 (23), not what is left of it.
    # Deductible 600.00; 20 % of the remaining 1,000.00 = 200.00; copay 25.00 -> patient 825.00, plan 775.00.
    est = cleared["estimate"]
    assert (est["allowed"], est["deductible"], est["coinsurance"], est["copay"]) == (
        "1600.00",
        "600.00",
        "200.00",
        "25.00",
    )
    assert (est["patient"], est["plan"], est["cappedByOutOfPocket"]) == ("825.00", "775.00", False)
    assert (est["complete"], est["missing"]) == (False, ["out_of_pocket_remaining"])
    assert [(x["lineNumber"], x["allowed"], x["basis"]) for x in est["lines"]] == [
        (1, "1400.00", "charge_ceiling"),
        (2, "200.00", "charge_ceiling"),
    ]
    assert any("ceiling" in n for n in est["notes"]) and any("not capped" in n for n in est["notes"])
    assert _status(member, claim_id) == {
        "claimId": claim_id,
        "clearance": cleared,
        "stale": False,
        "staleBecause": [],
    }
    prepared = member.rpc.mutation("claims.requestSubmissionPreparation", {"id": claim_id}).data
    assert prepared["state"] == "ready_for_submission_preparation"

    newer = _check(member, patient, "SBXACTIVE01")  # a newer check: the clearance no longer rests on the latest
    assert _status(member, claim_id)["staleBecause"] == [
        f"eligibility check {newer['id']} was made after the clearance"
    ]

    with services.database.transaction() as db:
        audits = db.scalars(
            select(AuditEvent).where(
                AuditEvent.client_id == member.client_id, AuditEvent.procedure == "financialClearance.clear"
            )
        ).all()
    assert sorted(int(a.target_id) for a in audits) == sorted([blocked["id"], cleared["id"]])
    assert all(a.target_type == "financial_clearance" for a in audits)
    assert patient not in " ".join(str(vars(a)) for a in audits)


def test_inactive_or_unknown_coverage_blocks_without_an_estimate(member):
    for member_id, status in (("SBXINACTIVE1", "inactive"), ("SBXNOBODY01", "not_found")):
        patient = _patient()
        claim_id = _claim(member, patient, "99213")
        check = _check(member, patient, member_id)
        found = _clear(member, claim_id).data
        assert (found["status"], found["eligibilityCheckId"], found["estimate"]) == ("blocked", check["id"], None)
        [blocker] = found["blockers"]
        assert blocker["kind"] == "eligibility"
        assert blocker["message"].startswith(f"eligibility check {check['id']} answered {status}")
        assert member_id not in blocker["message"]


def test_a_plan_that_ends_before_the_service_date_blocks(member):
    patient = _patient()
    claim_id = _claim(member, patient, "99213")
    # asked for 2026-06-30, the last day of SBXMIDYEAR01's plan: active, yet the claim's service is later
    check = _check(member, patient, "SBXMIDYEAR01", date(2026, 6, 30))
    assert (check["status"], check["planEnd"]) == ("active", "2026-06-30")
    found = _clear(member, claim_id).data
    assert [b["message"] for b in found["blockers"]] == [
        f"eligibility check {check['id']}: the plan ends before the service date"
    ]


def test_no_check_blocks_and_checks_elsewhere_or_after_the_service_do_not_count(member):
    patient = _patient()
    claim_id = _claim(member, patient, "99213")
    found = _clear(member, claim_id).data
    assert found["status"] == "blocked" and _kinds(found) == ["eligibility"]
    assert found["blockers"][0]["message"].startswith(f"no eligibility check with payer {PAYER_ID}")
    # a check of another patient reference does not count
    _check(member, _patient(), "SBXACTIVE01")
    assert _kinds(_clear(member, claim_id).data) == ["eligibility"]
    # a service five days ago, checked only today (after it): no check on or before the service date
    # (whatever it answered: a check after the service did not clear it in time)
    past = TODAY - timedelta(days=5)
    late = _claim(member, patient, "99213", served=past)
    _check(member, patient, "SBXACTIVE01", past)
    blocked = _clear(member, late).data
    assert blocked["eligibilityCheckId"] is None and "no eligibility check" in blocked["blockers"][0]["message"]


def test_list_pages_and_filters_by_status(member):
    patient = _patient()
    cleared_claim = _claim(member, patient, "99213")
    _check(member, patient, "SBXACTIVE01")
    blocked_claim = _claim(member, _patient(), "99213")
    cleared = _clear(member, cleared_claim).data
    blocked = _clear(member, blocked_claim).data
    assert cleared["status"] == "cleared" and blocked["status"] == "blocked"
    listed = member.rpc.query("financialClearance.list", {"limit": 1}).data
    assert [c["id"] for c in listed["items"]] == [blocked["id"]] and listed["nextCursor"]
    rest = member.rpc.query("financialClearance.list", {"limit": 1, "cursor": listed["nextCursor"]}).data
    assert [c["id"] for c in rest["items"]] == [cleared["id"]]
    only = member.rpc.query("financialClearance.list", {"status": "cleared"}).data["items"]
    assert [c["id"] for c in only] == [cleared["id"]]
    by_claim = member.rpc.query("financialClearance.list", {"claimId": blocked_claim}).data["items"]
    assert [c["id"] for c in by_claim] == [blocked["id"]]


def test_another_clients_claim_is_not_found(make_member):
    a, b = make_member(), make_member()
    patient = _patient()
    claim_id = _claim(a, patient, "99213")
    _check(a, patient, "SBXACTIVE01")
    done = _clear(a, claim_id).data
    assert _clear(b, claim_id).code == "NOT_FOUND"
    assert b.rpc.query("financialClearance.status", {"claimId": claim_id}).code == "NOT_FOUND"
    assert b.rpc.query("financialClearance.list", {"claimId": claim_id}).data["items"] == []
    assert done["id"] not in [c["id"] for c in b.rpc.query("financialClearance.list", {}).data["items"]]


@pytest.mark.parametrize(
    ("path", "kind", "payload", "field"),
    [
        ("financialClearance.clear", "mutation", {}, "claimId"),
        ("financialClearance.clear", "mutation", {"claimId": 0}, "claimId"),
        ("financialClearance.clear", "mutation", {"claimId": "x" * 10_000}, "claimId"),
        ("financialClearance.clear", "mutation", {"claimId": 1, "patientRef": "x"}, "patientRef"),
        ("financialClearance.status", "query", {"claimId": 2**63}, "claimId"),
        ("financialClearance.list", "query", {"status": "maybe"}, "status"),
        ("financialClearance.list", "query", {"limit": 10_000}, "limit"),
    ],
)
def test_bad_input_is_bad_request_naming_the_field(member, path, kind, payload, field):
    result = getattr(member.rpc, kind)(path, payload)
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"], result.error["message"]
