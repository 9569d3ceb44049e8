"""A requirement written for a plan or a place of service matches a stored claim (real wire, SQLite and
PostgreSQL): the claim's plan (837 SBR03) and place of service (837P CLM05-1, a line's SV105 overriding it)
are stored at intake and read by priorAuthorization.status, payerApplicability.forClaim,
financialClearance.clear and the submission-preparation blocker.

tests/fixtures/x12/hand/prior_auth_place_plan.837, by hand: claim POS-1 of HAND PLAN PAYER (HPP01), SBR09
CI (commercial: no platform requirement applies), SBR03 GOLD-PPO-7, CLM05-1 11 (office); line 1 HC:70551
500.00 on 2026-03-05 without SV105 (the claim's 11), line 2 HC:70551 600.00 on 2026-03-06 with SV105 22
(outpatient hospital). Both lines have the same code, so only the plan and the place tell them apart.
"""

from __future__ import annotations

import uuid

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import HAND, confirm, join_as
from tests.integration.api.money.ingestion.conftest import upload_json

FIXTURE = "prior_auth_place_plan.837"
REQUIREMENT = {
    "payerType": "commercial",
    "procedureCodes": "70551",
    "effectiveFrom": "2026-01-01",
    "source": "Hand Plan Payer prior-authorization list 2026",
}


@pytest.fixture
def owner(make_member):
    return make_member(role="admin")


def _posted_claim(member) -> int:
    batch = upload_json(member.rpc, (HAND / FIXTURE).read_bytes(), FIXTURE, "ingestion.uploadUniversal").data["batch"]
    assert confirm(member.rpc, batch["id"]).data["batch"]["status"] == "confirmed"
    items = member.rpc.query("claims.list", {"claimKey": "POS-1"}).data["items"]
    assert len(items) == 1
    return int(items[0]["id"])


def _require(owner, services, **scope) -> None:
    """A client's requirement, written as they are: one manager proposes, another approves (payerRules)."""
    _uid, approver = join_as(owner, services, "manager")
    change = owner.rpc.mutation("payerRules.proposeAuthorization", {**REQUIREMENT, **scope}).data["change"]
    decided = approver.mutation("payerRules.decide", {"id": change["id"], "decision": "approve", "reason": "letter"})
    assert decided.data["change"]["state"] == "approved", decided.body


def _flagged(owner, claim_id: int) -> list[int]:
    """The lines priorAuthorization.status says need an authorization (none is requested here)."""
    status = owner.rpc.query("priorAuthorization.status", {"claimId": claim_id}).data
    required = [line["lineNumber"] for line in status["lines"] if line["required"]]
    assert [m["lineNumber"] for m in status["missing"]] == required
    assert status["clear"] is (required == [])
    return required


def test_the_837p_stores_the_claims_place_and_plan_and_the_lines_own_place(owner):
    claim = owner.rpc.query("claims.get", {"id": _posted_claim(owner)}).data
    assert (claim["placeOfService"], claim["plan"], claim["payerId"], claim["filingIndicator"]) == (
        "11",
        "GOLD-PPO-7",
        "HPP01",
        "CI",
    )
    assert [(line["lineNumber"], line["procedureCode"], line["placeOfService"]) for line in claim["lines"]] == [
        (1, "70551", None),  # no SV105: the claim's 11
        (2, "70551", "22"),
    ]


@pytest.mark.parametrize(
    ("scope", "flagged"),
    [
        ({"plan": "GOLD-PPO-7", "placeOfService": "22"}, [2]),  # line 2 is at 22 (SV105) under GOLD-PPO-7
        ({"plan": "gold-ppo-7", "placeOfService": "22"}, [2]),  # plans compare upper-cased
        ({"placeOfService": "11"}, [1]),  # line 1 reads the claim's 11; line 2's own 22 overrides it
        ({"plan": "SILVER-HMO-2"}, []),  # another plan: neither line
        ({"plan": "SILVER-HMO-2", "placeOfService": "22"}, []),
        ({}, [1, 2]),  # any plan, any place: both (the control)
    ],
)
def test_a_requirement_for_a_plan_or_place_flags_only_the_lines_there(owner, services, scope, flagged):
    claim_id = _posted_claim(owner)
    assert _flagged(owner, claim_id) == []  # commercial: nothing before the client's requirement
    _require(owner, services, **scope)
    assert _flagged(owner, claim_id) == flagged
    out = owner.rpc.query("payerApplicability.forClaim", {"claimId": claim_id, "asOf": "2026-03-10"}).data
    assert [line["lineNumber"] for line in out["lines"] if line["needsAuthorization"]] == flagged
    applied = [rule for rule in out["rules"] if rule["kind"] == "authorization_requirement"]
    assert [rule["authorization"]["lineNumber"] for rule in applied] == flagged
    for rule in applied:  # the facts that selected it name the plan and the place it asked for
        for fact, key in (("plan", "plan"), ("place_of_service", "placeOfService")):
            if key in scope:
                assert {"fact": fact, "value": scope[key].upper()} in rule["selectedBy"]


def test_a_claims_exports_place_and_plan_columns_are_stored_and_matched(owner, services):
    # Two rows of one account: the claim's place and plan are its first row's, each line keeps its row's place
    export = (
        b"Account Number,Payer,Service Date,Billed Amount,CPT,POS,Plan\n"
        b"CSV-POS-1,Hand Plan Payer,03/05/2026,500.00,70551,11,Gold-PPO-7\n"
        b"CSV-POS-1,Hand Plan Payer,03/06/2026,600.00,70551,22,Gold-PPO-7\n"
    )
    batch = upload_json(owner.rpc, export, "claims.csv", "ingestion.uploadCsv").data["batch"]
    assert batch["kind"] == "csv_claims"
    assert confirm(owner.rpc, batch["id"]).data["batch"]["status"] == "confirmed"
    items = owner.rpc.query("claims.list", {"claimKey": "CSV-POS-1"}).data["items"]
    claim = owner.rpc.query("claims.get", {"id": items[0]["id"]}).data
    assert (claim["origin"], claim["placeOfService"], claim["plan"]) == ("csv", "11", "GOLD-PPO-7")
    assert [line["placeOfService"] for line in claim["lines"]] == ["11", "22"]
    _require(owner, services, plan="GOLD-PPO-7", placeOfService="22")
    # an export names no filing indicator: the payer type is unknown, commercial's requirement is assumed
    status = owner.rpc.query("priorAuthorization.status", {"claimId": claim["id"]}).data
    assert [(line["lineNumber"], line["required"], line["assumed"]) for line in status["lines"]] == [
        (1, False, False),
        (2, True, True),
    ]


def test_a_manual_claims_place_and_plan_block_submission_preparation_on_the_line_there(owner, services):
    lines = [
        {"procedureCode": "70551", "charge": "500.00", "serviceDateFrom": "2026-03-05"},
        {"procedureCode": "70551", "charge": "600.00", "serviceDateFrom": "2026-03-06", "placeOfService": "22"},
    ]
    body = claim_body(
        f"PP-{uuid.uuid4().hex[:8]}",
        statementFrom="2026-03-05",
        statementTo="2026-03-06",
        placeOfService="11",
        plan="  gold-ppo-7 ",
        lines=lines,
    )
    created = owner.rpc.mutation("claims.create", body).data
    assert (created["placeOfService"], created["plan"]) == ("11", "GOLD-PPO-7")  # trimmed, upper-cased
    claim_id = created["id"]
    _require(owner, services, plan="GOLD-PPO-7", placeOfService="22")
    assert _flagged(owner, claim_id) == [2]
    owner.rpc.mutation("claims.review", {"id": claim_id})
    refused = owner.rpc.mutation("claims.requestSubmissionPreparation", {"id": claim_id})
    assert refused.code == "PRECONDITION_FAILED", refused.body
    assert "line 2 (70551)" in refused.error["message"] and "line 1" not in refused.error["message"]
    cleared = owner.rpc.mutation("financialClearance.clear", {"claimId": claim_id}).data
    assert [b["lineNumber"] for b in cleared["blockers"] if b["kind"] == "authorization"] == [2]


def test_bad_place_or_plan_on_a_manual_claim_is_bad_request_naming_the_field(owner):
    for field, value in (("placeOfService", "2"), ("placeOfService", "1A"), ("plan", "GOLD*PPO"), ("plan", "")):
        result = owner.rpc.mutation("claims.create", claim_body(**{field: value}))
        assert result.code == "BAD_REQUEST", result.body
        assert field in result.error["message"], result.error["message"]
    line = {"procedureCode": "99213", "charge": "1.00", "serviceDateFrom": "2025-03-01", "placeOfService": "222"}
    result = owner.rpc.mutation("claims.create", claim_body(lines=[line]))
    assert result.code == "BAD_REQUEST" and "placeOfService" in result.error["message"], result.body


def test_an_837i_claim_has_no_place_of_service(owner):
    # deadlines_institutional.837 (837I): CLM05-1 11 is the facility type of bill 111 (hospital inpatient),
    # not the office place of service 11
    batch = upload_json(
        owner.rpc, (HAND / "deadlines_institutional.837").read_bytes(), "inst.837", "ingestion.uploadUniversal"
    ).data["batch"]
    assert confirm(owner.rpc, batch["id"]).data["batch"]["status"] == "confirmed"
    items = owner.rpc.query("claims.list", {"claimKey": "INST-1"}).data["items"]
    claim = owner.rpc.query("claims.get", {"id": items[0]["id"]}).data
    assert (claim["facilityType"], claim["billType"], claim["placeOfService"]) == ("11", "111", None)
    assert claim["plan"] is None  # SBR03 is empty
    assert [line["placeOfService"] for line in claim["lines"]] == [None]  # SV2 has no place of service
