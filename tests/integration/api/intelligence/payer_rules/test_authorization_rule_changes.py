"""A client's prior-authorization requirements change only through payer rules' approval, on SQLite and
PostgreSQL: manager A proposes (payerRules.proposeAuthorization), A cannot approve it, manager B does;
then priorAuthorization lists it and flags a claim line with its code, and payerApplicability.forClaim
names it for that line with its source; a rejected proposal writes nothing; another client's ids are
NOT_FOUND.

The claim (hand-made): commercial payer ACME01 (SBR09 CI), statement 2026-02-10; line 1 is 70551 (MRI of
the brain without contrast), line 2 99213 (an office visit). No platform requirement covers a commercial
payer (the platform list is Medicare's OPD list, 42 CFR 419.83), so line 1 needs an authorization only
once the client's requirement 70551-70553 for ACME01 from 2026-01-01 is approved.
"""

from __future__ import annotations

import uuid

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import join_as

SOURCE = "ACME provider manual 2026, section 7.3 (advanced imaging)"
REQUIREMENT = {
    "payerType": "commercial",
    "payerId": "ACME01",
    "procedureCodes": "70551-70553",
    "effectiveFrom": "2026-01-01",
    "source": SOURCE,
}
LINES = [
    {"procedureCode": "70551", "charge": "900.00", "serviceDateFrom": "2026-02-10"},
    {"procedureCode": "99213", "charge": "120.00", "serviceDateFrom": "2026-02-10"},
]


@pytest.fixture
def manager_a(make_member):
    return make_member(role="admin")


def _claim(member) -> int:
    body = claim_body(
        f"AR-{uuid.uuid4().hex[:8]}",
        filingIndicator="CI",
        payer="ACME HEALTH",
        payerId="ACME01",
        statementFrom="2026-02-10",
        statementTo="2026-02-10",
        lines=LINES,
    )
    return int(member.rpc.mutation("claims.create", body).data["id"])


def _propose(member, body: dict | None = None) -> dict:
    return member.rpc.mutation("payerRules.proposeAuthorization", body or REQUIREMENT).data


def _decide(rpc, change_id: int, decision: str = "approve"):
    return rpc.mutation("payerRules.decide", {"id": change_id, "decision": decision, "reason": "per the manual"})


def _status(member, claim_id: int) -> dict:
    return member.rpc.query("priorAuthorization.status", {"claimId": claim_id}).data


def test_the_proposer_cannot_approve_another_manager_can_and_the_claim_is_flagged(manager_a, services):
    claim_id = _claim(manager_a)
    assert _status(manager_a, claim_id)["clear"] is True  # nothing requires it yet
    proposed = _propose(manager_a)
    change = proposed["change"]
    assert (change["kind"], change["state"], change["proposedBy"]) == ("authorization", "proposed", manager_a.user_id)
    assert change["payload"]["procedure_codes"] == "70551-70553" and change["payload"]["payer_id"] == "ACME01"
    shown = proposed["requirement"]
    assert (proposed["created"], shown["id"], shown["version"]) == (True, None, 1)
    assert shown["reference"] == f"payer_rule_changes/{change['id']}"

    # the attack: the proposer approves their own change; nothing is written
    own = _decide(manager_a.rpc, change["id"])
    assert own.code == "FORBIDDEN" and "another manager or admin" in own.error["message"]
    assert manager_a.rpc.query("priorAuthorization.requirements", {"payerId": "ACME01"}).data["items"] == []
    assert _status(manager_a, claim_id)["clear"] is True

    _uid, manager_b = join_as(manager_a, services, "manager")
    decided = _decide(manager_b, change["id"]).data
    assert decided["change"]["state"] == "approved" and decided["rule"] is None and decided["rescheduled"] == 0
    written = decided["requirement"]
    assert (decided["created"], written["origin"], written["version"]) == (True, "client", 1)
    assert decided["change"]["appliedRuleId"] == written["id"]

    listed = manager_a.rpc.query("priorAuthorization.requirements", {"procedureCode": "70552"}).data["items"]
    assert [(r["id"], r["procedureCodes"], r["payerId"], r["source"], r["version"]) for r in listed] == [
        (written["id"], "70551-70553", "ACME01", SOURCE, 1)
    ]
    status = _status(manager_a, claim_id)
    assert status["clear"] is False
    assert [(m["lineNumber"], m["procedureCode"], m["reason"], m["source"]) for m in status["missing"]] == [
        (1, "70551", "none_requested", SOURCE)
    ]
    kinds = manager_a.rpc.query("payerRules.changes", {"kind": "authorization"}).data["items"]
    assert [(c["id"], c["state"]) for c in kinds] == [(change["id"], "approved")]
    assert manager_a.rpc.query("payerRules.changes", {"kind": "limit"}).data["items"] == []


def test_a_rejected_or_withdrawn_proposal_writes_nothing(manager_a, services):
    claim_id = _claim(manager_a)
    _uid, manager_b = join_as(manager_a, services, "manager")
    rejected = _decide(manager_b, _propose(manager_a)["change"]["id"], "reject").data
    assert (rejected["change"]["state"], rejected["requirement"], rejected["change"]["appliedRuleId"]) == (
        "rejected",
        None,
        None,
    )
    withdrawn = _propose(manager_a)["change"]
    assert manager_a.rpc.mutation("payerRules.withdraw", {"id": withdrawn["id"]}).data["state"] == "withdrawn"
    assert _decide(manager_b, withdrawn["id"]).code == "PRECONDITION_FAILED"
    assert manager_a.rpc.query("priorAuthorization.requirements", {"payerId": "ACME01"}).data["items"] == []
    assert _status(manager_a, claim_id)["clear"] is True


def test_for_claim_names_the_requirement_of_each_line_with_its_source(manager_a, services):
    claim_id = _claim(manager_a)
    _uid, manager_b = join_as(manager_a, services, "manager")
    written = _decide(manager_b, _propose(manager_a)["change"]["id"]).data["requirement"]
    out = manager_a.rpc.query("payerApplicability.forClaim", {"claimId": claim_id, "asOf": "2026-03-01"}).data
    auth = [r for r in out["rules"] if r["kind"] == "authorization_requirement"]
    assert len(auth) == 1
    rule = auth[0]
    assert rule["source"] == SOURCE and rule["effectiveFrom"] == "2026-01-01"
    assert rule["reference"] == f"prior_auth_requirements/{written['id']}"
    assert rule["scope"] == {
        "origin": "client",
        "breadth": "payer_specific",
        "payerType": "commercial",
        "payerId": "ACME01",
    }
    selected = {(s["fact"], s["value"]) for s in rule["selectedBy"]}
    assert {("line_number", "1"), ("procedure_code", "70551"), ("payer_id", "ACME01")} <= selected
    detail = rule["authorization"]
    assert (detail["lineNumber"], detail["procedureCodes"], detail["version"]) == (1, "70551-70553", 1)
    assert (detail["covered"], detail["missing"]) == (False, "none_requested")
    # every line is answered: line 2 has no requirement
    assert [(line["lineNumber"], line["authorizationReference"], line["covered"]) for line in out["lines"]] == [
        (1, rule["reference"], False),
        (2, None, None),
    ]
    # the limits are still there beside it
    assert any(r["kind"] == "timely_filing_limit" for r in out["rules"])

    # an approved authorization for the line: forClaim says it is covered, by which request
    auth_id = manager_a.rpc.mutation("priorAuthorization.request", {"claimId": claim_id, "lineNumber": 1}).data["id"]
    approval = {
        "id": auth_id,
        "outcome": "approved",
        "authorizationNumber": "ACME-5566",
        "approvedUnits": 1,
        "validFrom": "2026-02-01",
        "validTo": "2026-04-30",
    }
    assert manager_a.rpc.mutation("priorAuthorization.record", approval).status == 200
    out = manager_a.rpc.query("payerApplicability.forClaim", {"claimId": claim_id, "asOf": "2026-03-01"}).data
    detail = next(r for r in out["rules"] if r["kind"] == "authorization_requirement")["authorization"]
    assert (detail["covered"], detail["coveredBy"], detail["missing"]) == (True, auth_id, None)


def test_another_clients_ids_are_not_found(manager_a, make_member, services):
    stranger = make_member(role="admin")
    claim_id = _claim(manager_a)
    change = _propose(manager_a)["change"]
    assert _decide(stranger.rpc, change["id"]).code == "NOT_FOUND"
    assert stranger.rpc.mutation("payerRules.withdraw", {"id": change["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("payerApplicability.forClaim", {"claimId": claim_id}).code == "NOT_FOUND"
    assert stranger.rpc.query("payerRules.changes", {"kind": "authorization"}).data["items"] == []
    # the stranger's own approved requirement for the same scope touches nothing of the first client
    _uid, stranger_b = join_as(stranger, services, "manager")
    assert _decide(stranger_b, _propose(stranger)["change"]["id"]).data["change"]["state"] == "approved"
    assert manager_a.rpc.query("priorAuthorization.requirements", {"payerId": "ACME01"}).data["items"] == []
    assert _status(manager_a, claim_id)["clear"] is True


def test_bad_proposals_are_refused_naming_the_field(manager_a):
    propose = "payerRules.proposeAuthorization"
    for change, field in [
        ({"procedureCodes": "70553-70551"}, "procedureCodes"),
        ({"procedureCodes": "70551-J0585"}, "procedureCodes"),
        ({"procedureCodes": "7" * 100_000}, "procedureCodes"),
        ({"effectiveTo": "2025-12-31"}, "effectiveTo"),
        ({"revenueCode": "45"}, "revenueCode"),
        ({"source": "x" * 501}, "source"),
    ]:
        refused = manager_a.rpc.mutation(propose, {**REQUIREMENT, **change})
        assert refused.code == "BAD_REQUEST" and field in refused.error["message"], (change, refused.body)
    assert manager_a.rpc.query("payerRules.changes", {}).data["items"] == []
