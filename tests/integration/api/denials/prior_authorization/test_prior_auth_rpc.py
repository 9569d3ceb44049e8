"""priorAuthorization.* over the real RPC wire, on SQLite and PostgreSQL: a Medicare claim whose line
needs a prior authorization (64612, Medicare's hospital OPD list, 42 CFR 419.83) is flagged and refused
submission preparation until an approval covering its code, dates and units is recorded; expired,
wrong dates and too few units stay flagged; a client's own requirement (proposed by one manager through
payerRules, approved by another) overrides the platform's; other clients' ids are NOT_FOUND; bad input
is BAD_REQUEST naming the field."""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import join_as

# Line 1: 64612 (botulinum toxin, on the OPD list since 2020-07-01), 2 units on 2025-03-10.
# Line 2: 99213 (an office visit, on no list). Filing indicator MB: Medicare Part B.
LINES = [
    {"procedureCode": "64612", "units": 2, "charge": "400.00", "serviceDateFrom": "2025-03-10"},
    {"procedureCode": "99213", "charge": "120.00", "serviceDateFrom": "2025-03-10"},
]


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _claim(member, **overrides) -> int:
    medicare = {"filingIndicator": "MB", "payer": "MEDICARE PART B", "payerId": "MCR01"}
    dated = {"statementFrom": "2025-03-10", "statementTo": "2025-03-10", "lines": LINES}
    body = claim_body(f"PA-{uuid.uuid4().hex[:8]}", **{**medicare, **dated, **overrides})
    claim_id = member.rpc.mutation("claims.create", body).data["id"]
    assert member.rpc.mutation("claims.review", {"id": claim_id}).data["state"] == "in_review"
    return claim_id


def _status(member, claim_id: int) -> dict:
    return member.rpc.query("priorAuthorization.status", {"claimId": claim_id}).data


def _prepare(member, claim_id: int):
    return member.rpc.mutation("claims.requestSubmissionPreparation", {"id": claim_id})


def _request(member, claim_id: int, **extra) -> dict:
    return member.rpc.mutation("priorAuthorization.request", {"claimId": claim_id, "lineNumber": 1, **extra}).data


def _approve(member, auth_id: int, **extra):
    body = {
        "id": auth_id,
        "outcome": "approved",
        "authorizationNumber": "PA-778899",
        "approvedUnits": 2,
        "validFrom": "2025-03-01",
        "validTo": "2025-05-31",
        **extra,
    }
    return member.rpc.mutation("priorAuthorization.record", body)


def _approved_requirement(proposer, approver, body: dict) -> dict:
    """A requirement as a client's are written: one manager proposes, another approves (payerRules)."""
    change = proposer.rpc.mutation("payerRules.proposeAuthorization", body).data["change"]
    decided = approver.mutation(
        "payerRules.decide", {"id": change["id"], "decision": "approve", "reason": "matches the payer's letter"}
    ).data
    assert decided["change"]["state"] == "approved" and decided["rule"] is None
    return decided


def _bad(result, field: str) -> None:
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"], result.error["message"]


def test_a_line_needing_authorization_is_flagged_refused_then_cleared(member):
    claim_id = _claim(member)
    status = _status(member, claim_id)
    assert status["clear"] is False and status["payerType"] == "medicare" and not status["payerTypeAssumed"]
    first, second = status["lines"]
    assert (first["required"], first["missing"], first["coveredBy"]) == (True, "none_requested", None)
    assert first["requirement"]["origin"] == "platform" and "42 CFR 419.83" in first["requirement"]["source"]
    assert (second["required"], second["requirement"]) == (False, None)
    assert [(m["lineNumber"], m["procedureCode"], m["reason"]) for m in status["missing"]] == [
        (1, "64612", "none_requested")
    ]

    refused = _prepare(member, claim_id)
    assert refused.code == "PRECONDITION_FAILED", refused.body
    message = refused.error["message"]
    assert "line 1 (64612) needs a prior authorization" in message and "42 CFR 419.83" in message
    claim = member.rpc.query("claims.get", {"id": claim_id}).data
    assert "MRN-TOKEN-1" not in message and claim["claimKey"] not in message  # neither the patient nor the key
    assert claim["state"] == "in_review"  # nothing moved

    requested = _request(member, claim_id)
    # the line's code, units and dates by default
    assert (requested["state"], requested["procedureCode"]) == ("requested", "64612")
    assert Decimal(requested["requestedUnits"]) == 2
    assert (requested["serviceFrom"], requested["serviceTo"]) == ("2025-03-10", "2025-03-10")
    assert _status(member, claim_id)["lines"][0]["missing"] == "pending"
    assert _prepare(member, claim_id).code == "PRECONDITION_FAILED"

    pending = member.rpc.mutation("priorAuthorization.record", {"id": requested["id"], "outcome": "pending"}).data
    assert pending["state"] == "pending" and pending["allowedMoves"] == ["approved", "denied", "withdrawn"]
    approved = _approve(member, requested["id"]).data
    assert (approved["storedState"], approved["authorizationNumber"]) == ("approved", "PA-778899")
    # valid through 2025-05-31, so shown expired today, yet it still covers the service of 2025-03-10
    assert approved["state"] == "expired"
    assert Decimal(approved["approvedUnits"]) == 2
    status = _status(member, claim_id)
    assert status["clear"] is True and status["lines"][0]["coveredBy"] == requested["id"] and status["missing"] == []
    assert _prepare(member, claim_id).data["state"] == "ready_for_submission_preparation"


@pytest.mark.parametrize(
    ("valid_from", "valid_to", "units", "reason"),
    [
        ("2025-01-01", "2025-03-09", 2, "expired"),  # ended the day before the service (2025-03-10)
        ("2025-03-11", "2025-06-30", 2, "dates_not_covered"),  # starts the day after
        ("2025-03-01", "2025-05-31", 1, "units_exceeded"),  # 1 approved unit, the line bills 2
    ],
)
def test_an_approval_that_does_not_cover_the_line_stays_flagged(member, valid_from, valid_to, units, reason):
    claim_id = _claim(member)
    auth = _request(member, claim_id)
    _approve(member, auth["id"], validFrom=valid_from, validTo=valid_to, approvedUnits=units).data
    status = _status(member, claim_id)
    assert status["clear"] is False
    assert [(m["reason"], m["authorizationId"]) for m in status["missing"]] == [(reason, auth["id"])]
    refused = _prepare(member, claim_id)
    assert refused.code == "PRECONDITION_FAILED" and "line 1 (64612)" in refused.error["message"]


def test_an_expired_approval_is_shown_expired_and_denials_need_a_reason(member):
    claim_id = _claim(member)
    auth = _request(member, claim_id)
    shown = _approve(member, auth["id"], validFrom="2020-01-01", validTo="2020-12-31").data
    assert (shown["state"], shown["storedState"]) == ("expired", "approved")  # its valid-to date has passed
    other = _request(member, claim_id)
    _bad(member.rpc.mutation("priorAuthorization.record", {"id": other["id"], "outcome": "denied"}), "reason")
    denied = member.rpc.mutation(
        "priorAuthorization.record", {"id": other["id"], "outcome": "denied", "reason": "not medically necessary"}
    ).data
    assert denied["state"] == "denied"
    again = _approve(member, other["id"])  # denied -> approved is not a move: reconsider (pending) first
    assert again.code == "PRECONDITION_FAILED" and "'denied'" in again.error["message"]


def test_a_clients_own_exemption_overrides_the_platform(make_member, services):
    manager = make_member(role="admin")
    _uid, approver = join_as(manager, services, "manager")
    claim_id = _claim(manager)
    exempt = {
        "payerType": "medicare",
        "payerId": "MCR01",
        "procedureCodes": "64610-64615",
        "requiresAuthorization": False,
        "effectiveFrom": "2025-01-01",
        "source": "MAC demonstration exemption letter 2025-01",
    }
    assert manager.rpc.mutation("priorAuthorization.upsertRequirement", exempt).code == "NOT_FOUND"  # removed
    made = _approved_requirement(manager, approver, exempt)
    assert made["created"] is True and made["requirement"]["version"] == 1
    assert _status(manager, claim_id)["clear"] is True
    assert _prepare(manager, claim_id).data["state"] == "ready_for_submission_preparation"
    again = _approved_requirement(manager, approver, {**exempt, "source": "renewed letter"})
    assert (again["created"], again["requirement"]["version"]) == (False, 2)
    assert again["requirement"]["id"] == made["requirement"]["id"]
    listed = manager.rpc.query("priorAuthorization.requirements", {"procedureCode": "64612"}).data
    assert [r["procedureCodes"] for r in listed["items"]] == ["64610-64615"]
    assert [r["procedureCodes"] for r in listed["defaults"]] == ["64612"]
    checked = manager.rpc.query(
        "priorAuthorization.check",
        {"payerType": "medicare", "procedureCode": "22551", "serviceDate": "2021-07-01", "placeOfService": "22"},
    ).data
    assert checked["required"] is True and "42 CFR 419.83(a)(2)" in checked["requirement"]["source"]


def test_a_specialist_cannot_write_requirements(make_member, services):
    owner = make_member(role="admin")
    _user, specialist = join_as(owner, services, "specialist")
    body = {"payerType": "medicare", "procedureCodes": "64612", "effectiveFrom": "2025-01-01", "source": "x y z"}
    assert specialist.mutation("payerRules.proposeAuthorization", body).code == "FORBIDDEN"


def test_other_clients_ids_are_not_found(make_member):
    owner, stranger = make_member(role="admin"), make_member(role="admin")
    claim_id = _claim(owner)
    auth = _request(owner, claim_id)
    assert stranger.rpc.query("priorAuthorization.status", {"claimId": claim_id}).code == "NOT_FOUND"
    assert stranger.rpc.query("priorAuthorization.get", {"id": auth["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("priorAuthorization.list", {"claimId": claim_id}).code == "NOT_FOUND"
    assert stranger.rpc.mutation("priorAuthorization.request", {"claimId": claim_id, "lineNumber": 1}).code == (
        "NOT_FOUND"
    )
    assert _approve(stranger, auth["id"]).code == "NOT_FOUND"
    assert _request(owner, claim_id)["id"] != auth["id"]  # the owner still sees and uses its claim
    listed = owner.rpc.query("priorAuthorization.list", {"claimId": claim_id}).data["items"]
    assert len(listed) == 2 and stranger.rpc.query("priorAuthorization.list", {}).data["items"] == []
    case_body = {"claimId": claim_id, "lineNumber": 1, "caseId": 10**12}
    assert owner.rpc.mutation("priorAuthorization.request", case_body).code == "NOT_FOUND"


def test_bad_input_is_refused_naming_the_field(member):
    rpc = member.rpc
    claim_id = _claim(member)
    ask = "priorAuthorization.request"
    _bad(rpc.mutation(ask, {"claimId": claim_id, "procedureCode": "6461"}), "procedureCode")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "procedureCode": "ZZZZZ"}), "CPT code")
    _bad(rpc.mutation(ask, {"claimId": claim_id}), "lineNumber")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "lineNumber": 7}), "lineNumber")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "lineNumber": 1, "procedureCode": "64615"}), "procedureCode")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "lineNumber": 1, "units": -1}), "units")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "lineNumber": 1, "units": 0}), "units")
    span = {"claimId": claim_id, "lineNumber": 1, "serviceFrom": "2025-03-10", "serviceTo": "2025-03-01"}
    _bad(rpc.mutation(ask, span), "serviceTo")
    _bad(rpc.mutation(ask, {"claimId": claim_id, "procedureCode": "6" * 100_000}), "procedureCode")
    auth = _request(member, claim_id)
    _bad(_approve(member, auth["id"], validFrom="2025-06-01", validTo="2025-05-01"), "validTo")
    _bad(_approve(member, auth["id"], approvedUnits=-2), "approvedUnits")
    _bad(
        member.rpc.mutation("priorAuthorization.record", {"id": auth["id"], "outcome": "approved"}),
        "authorizationNumber",
    )
    upsert = "payerRules.proposeAuthorization"
    body = {"payerType": "medicare", "procedureCodes": "70553-70551", "effectiveFrom": "2025-01-01", "source": "list"}
    _bad(rpc.mutation(upsert, body), "procedureCodes")
    _bad(rpc.mutation(upsert, {**body, "procedureCodes": "70551-J0585"}), "procedureCodes")
    _bad(rpc.mutation(upsert, {**body, "procedureCodes": "70551", "effectiveTo": "2024-12-31"}), "effectiveTo")
    _bad(rpc.mutation(upsert, {**body, "procedureCodes": "70551", "placeOfService": "2"}), "placeOfService")
    _bad(rpc.mutation(upsert, {k: v for k, v in body.items() if k != "source"}), "source")
    _bad(rpc.query("priorAuthorization.requirements", {"procedureCode": "7055"}), "procedureCode")
    assert rpc.query("priorAuthorization.status", {"claimId": 10**12}).code == "NOT_FOUND"


def test_an_unknown_payer_is_flagged_as_assumed_and_a_withdrawn_request_counts_for_nothing(member):
    # no filing indicator and a payer id no alias classifies: every common payer type is tried, and
    # Medicare's OPD list requires 64612, so the line is flagged, marked assumed
    claim_id = _claim(member, filingIndicator=None, payerId="UNKNOWN9", payer="SOME PLAN")
    status = _status(member, claim_id)
    assert (status["payerType"], status["payerTypeAssumed"]) == ("unknown", True)
    assert status["lines"][0]["assumed"] is True and status["missing"][0]["assumed"] is True
    auth = _request(member, claim_id)
    withdrawn = member.rpc.mutation(
        "priorAuthorization.record", {"id": auth["id"], "outcome": "withdrawn", "reason": "procedure cancelled"}
    ).data
    assert (withdrawn["state"], withdrawn["allowedMoves"]) == ("withdrawn", [])
    assert _status(member, claim_id)["missing"][0]["reason"] == "none_requested"
    page = member.rpc.query("priorAuthorization.list", {"claimId": claim_id, "state": "withdrawn", "limit": 1}).data
    assert [a["id"] for a in page["items"]] == [auth["id"]] and page["nextCursor"] is None
