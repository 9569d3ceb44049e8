"""claims.* over the real RPC wire, on SQLite and PostgreSQL: lifecycle, bad input, wrong state,
separation of duties, tenancy, amounts, attachments, partner profiles, external actions and links."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from decimal import Decimal

from api.denials.cases.models import DenialCase
from tests.integration.api.denials.claims.conftest import claim_body
from tests.support.paths import X12_FIXTURES

SHA = "ab" * 32


def _create(member, **overrides) -> dict:
    return member.rpc.mutation("claims.create", claim_body(**overrides)).data


def _get(member, claim_id: int) -> dict:
    return member.rpc.query("claims.get", {"id": claim_id}).data


def _bad(result, field: str) -> None:
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"], result.error["message"]


def _wrong_state(result, state: str) -> None:
    assert result.code == "PRECONDITION_FAILED", result.body
    assert f"'{state}'" in result.error["message"], result.error["message"]


def _to_approved(team, claim_id: int) -> None:
    a, m = team.admin.rpc, team.manager.rpc
    assert a.mutation("claims.review", {"id": claim_id}).data["state"] == "in_review"
    assert m.mutation("claims.requestSubmissionPreparation", {"id": claim_id}).data["submissionRequestedBy"] == (
        team.manager.user_id
    )
    approved = a.mutation("claims.approveForSubmissionPreparation", {"id": claim_id}).data
    assert approved["state"] == "approved_for_submission_preparation"


def test_create_get_and_list(team):
    claim = _create(team.admin, key="PCN-CREATE-1")
    assert claim["state"] == "draft" and claim["origin"] == "manual" and claim["isSynthetic"] is False
    assert claim["totalCharge"] == "150.50"  # 120.00 + 30.50, by hand
    assert claim["diagnosisCodes"] == ["R51", "J069"]
    assert claim["allowedMoves"] == ["in_review", "withdrawn"]
    detail = _get(team.admin, claim["id"])
    assert [(ln["lineNumber"], ln["procedureCode"], ln["charge"]) for ln in detail["lines"]] == [
        (1, "99213", "120.00"),
        (2, "80053", "30.50"),
    ]
    assert detail["lines"][0]["modifiers"] == ["25"]
    assert [(t["fromState"], t["toState"], t["actorUserId"]) for t in detail["transitions"]] == [
        (None, "draft", team.admin.user_id)
    ]
    second = _create(team.admin)
    page = team.admin.rpc.query("claims.list", {"limit": 1}).data
    assert [c["id"] for c in page["items"]] == [second["id"]] and page["nextCursor"]
    rest = team.admin.rpc.query("claims.list", {"limit": 1, "cursor": page["nextCursor"]}).data
    assert [c["id"] for c in rest["items"]] == [claim["id"]] and rest["nextCursor"] is None
    found = team.admin.rpc.query("claims.list", {"claimKey": "PCN-CREATE-1"}).data["items"]
    assert [c["id"] for c in found] == [claim["id"]]
    assert team.admin.rpc.query("claims.list", {"state": "submitted"}).data["items"] == []


def test_create_refuses_bad_input_naming_the_field(team):
    rpc = team.admin.rpc
    _bad(rpc.mutation("claims.create", claim_body(lines=[])), "lines")
    _bad(rpc.mutation("claims.create", {k: v for k, v in claim_body().items() if k != "payer"}), "payer")
    line = {"procedureCode": "99213", "charge": "1.234", "serviceDateFrom": "2025-03-01"}
    _bad(rpc.mutation("claims.create", claim_body(lines=[line])), "lines.0.charge")
    _bad(rpc.mutation("claims.create", claim_body(lines=[{**line, "charge": "-5.00"}])), "lines.0.charge")
    _bad(rpc.mutation("claims.create", claim_body(claimKey="BAD*KEY~")), "claimKey")
    _bad(rpc.mutation("claims.create", claim_body(diagnosisCodes=["not a code"])), "diagnosisCodes.0")
    _bad(rpc.mutation("claims.create", claim_body(statementTo="2025-02-01")), "statementTo")
    _bad(rpc.mutation("claims.create", claim_body(totalCharge="150.00")), "totalCharge")
    _bad(
        rpc.mutation("claims.create", claim_body(lines=[{"charge": "1.00", "serviceDateFrom": "2025-03-01"}])),
        "lines.0",
    )
    _bad(rpc.mutation("claims.create", claim_body(unexpected=1)), "unexpected")
    _bad(rpc.query("claims.list", {"limit": 501}), "limit")
    _bad(rpc.query("claims.list", {"state": "sent"}), "state")
    _bad(rpc.query("claims.get", {"id": 0}), "id")
    assert rpc.query("claims.get", {"id": 10**12}).code == "NOT_FOUND"


def test_duplicate_claim_key_is_a_conflict_without_echoing_the_key(team):
    _create(team.admin, key="PCN-DUP-77")
    dup = team.admin.rpc.mutation("claims.create", claim_body("PCN-DUP-77"))
    assert dup.code == "CONFLICT" and "claimKey" in dup.error["message"]
    assert "PCN-DUP-77" not in dup.error["message"]


def test_review_correction_and_submission_preparation_lifecycle(team):
    a, m, s = team.admin.rpc, team.manager.rpc, team.specialist.rpc
    claim_id = _create(team.specialist)["id"]
    _wrong_state(a.mutation("claims.requestCorrection", {"id": claim_id, "reason": "fix the payer"}), "draft")
    _wrong_state(a.mutation("claims.approveCorrection", {"id": claim_id}), "draft")
    assert s.mutation("claims.review", {"id": claim_id}).data["state"] == "in_review"
    _wrong_state(s.mutation("claims.review", {"id": claim_id}), "in_review")
    _bad(m.mutation("claims.requestCorrection", {"id": claim_id}), "reason")
    asked = m.mutation("claims.requestCorrection", {"id": claim_id, "reason": "wrong payer id and charge"}).data
    assert asked["state"] == "correction_requested"
    # approving a correction needs the approve permission
    assert s.mutation("claims.approveCorrection", {"id": claim_id}).code == "FORBIDDEN"
    _bad(m.mutation("claims.approveCorrection", {"id": claim_id, "changes": {"billType": "1"}}), "changes.billType")
    corrected = m.mutation(
        "claims.approveCorrection",
        {
            "id": claim_id,
            "changes": {"payerId": "ACME2", "diagnosisCodes": ["I10"]},
            "lines": [{"procedureCode": "99214", "charge": "175.25", "serviceDateFrom": "2025-03-01"}],
            "reason": "payer id and the visit level corrected",
        },
    ).data
    assert corrected["state"] == "corrected" and corrected["payerId"] == "ACME2"
    assert corrected["totalCharge"] == "175.25" and corrected["diagnosisCodes"] == ["I10"]
    assert s.mutation("claims.review", {"id": claim_id}).data["state"] == "in_review"
    requested = s.mutation("claims.requestSubmissionPreparation", {"id": claim_id}).data
    assert requested["state"] == "ready_for_submission_preparation"
    # the specialist lacks 'approve'; the requester may never approve their own request
    assert s.mutation("claims.approveForSubmissionPreparation", {"id": claim_id}).code == "FORBIDDEN"
    approved = m.mutation("claims.approveForSubmissionPreparation", {"id": claim_id, "reason": "checked"}).data
    assert approved["state"] == "approved_for_submission_preparation"
    assert approved["submissionApprovedBy"] == team.manager.user_id
    _wrong_state(
        m.mutation("claims.approveForSubmissionPreparation", {"id": claim_id}), "approved_for_submission_preparation"
    )
    detail = _get(team.admin, claim_id)
    assert [t["toState"] for t in detail["transitions"]] == [
        "draft",
        "in_review",
        "correction_requested",
        "corrected",
        "in_review",
        "ready_for_submission_preparation",
        "approved_for_submission_preparation",
    ]
    assert [len(detail["lines"]), detail["lines"][0]["procedureCode"]] == [1, "99214"]
    assert detail["transitions"][2]["reason"] == "wrong payer id and charge"
    assert detail["transitions"][2]["actorUserId"] == team.manager.user_id
    assert detail["allowedMoves"] == ["submitted", "withdrawn"]


def test_the_requester_cannot_approve_submission_preparation(team):
    a = team.admin.rpc
    claim_id = _create(team.admin)["id"]
    a.mutation("claims.review", {"id": claim_id}).data
    a.mutation("claims.requestSubmissionPreparation", {"id": claim_id}).data
    own = a.mutation("claims.approveForSubmissionPreparation", {"id": claim_id})
    assert own.code == "FORBIDDEN" and "someone else" in own.error["message"]
    assert _get(team.admin, claim_id)["state"] == "ready_for_submission_preparation"
    # the approver can send it back for correction instead
    back = team.manager.rpc.mutation("claims.requestCorrection", {"id": claim_id, "reason": "attach the notes"}).data
    assert back["state"] == "correction_requested"


def test_withdraw_before_submission_only(team):
    a = team.admin.rpc
    claim_id = _create(team.admin)["id"]
    _bad(a.mutation("claims.withdraw", {"id": claim_id}), "reason")
    assert a.mutation("claims.withdraw", {"id": claim_id, "reason": "duplicate of another claim"}).data["state"] == (
        "withdrawn"
    )
    _wrong_state(a.mutation("claims.review", {"id": claim_id}), "withdrawn")
    _wrong_state(a.mutation("claims.withdraw", {"id": claim_id, "reason": "again please"}), "withdrawn")
    refused = a.mutation(
        "claims.recordFinancialAmount", {"id": claim_id, "kind": "expected", "amount": "1.00", "source": "manual"}
    )
    _wrong_state(refused, "withdrawn")


def test_attachments_and_amounts(team):
    a = team.admin.rpc
    claim_id = _create(team.admin)["id"]
    base = {"id": claim_id, "title": "Operative note", "mediaType": "application/pdf", "sizeBytes": 2048}
    _bad(a.mutation("claims.addAttachment", {**base, "sha256": "xyz"}), "sha256")
    _bad(a.mutation("claims.addAttachment", {**base, "sha256": SHA, "mediaType": "pdf"}), "mediaType")
    _bad(a.mutation("claims.addAttachment", {**base, "sha256": SHA, "sizeBytes": -1}), "sizeBytes")
    att = a.mutation("claims.addAttachment", {**base, "sha256": SHA.upper(), "storageRef": "dms://doc/1"}).data
    assert att["sha256"] == SHA and att["addedBy"] == team.admin.user_id
    amount = {"id": claim_id, "kind": "expected", "amount": "98.10", "source": "contract"}
    _bad(a.mutation("claims.recordFinancialAmount", {**amount, "amount": "1.001"}), "amount")
    _bad(a.mutation("claims.recordFinancialAmount", {**amount, "amount": "-1.00"}), "amount")
    _bad(a.mutation("claims.recordFinancialAmount", {**amount, "amount": "10000000000.00"}), "amount")
    _bad(a.mutation("claims.recordFinancialAmount", {**amount, "kind": "owed"}), "kind")
    _bad(a.mutation("claims.recordFinancialAmount", {**amount, "source": "guess"}), "source")
    first = a.mutation("claims.recordFinancialAmount", amount).data
    assert (first["kind"], first["amount"], first["source"]) == ("expected", "98.10", "contract")
    a.mutation(
        "claims.recordFinancialAmount", {**amount, "kind": "allowed", "amount": 75.5, "reference": "fee schedule 2025"}
    ).data
    detail = _get(team.admin, claim_id)
    assert [(x["kind"], Decimal(x["amount"])) for x in detail["amounts"]] == [
        ("expected", Decimal("98.10")),
        ("allowed", Decimal("75.50")),
    ]
    assert [x["title"] for x in detail["attachments"]] == ["Operative note"]
    assert team.admin.rpc.mutation("claims.recordFinancialAmount", {**amount, "id": 10**12}).code == "NOT_FOUND"


def test_partner_profiles_need_a_second_person(team):
    a, m = team.admin.rpc, team.manager.rpc
    body = {
        "name": "Clearinghouse One",
        "kind": "clearinghouse",
        "isaQualifier": "ZZ",
        "isaId": "CH1SENDER",
        "gsId": "CH1",
    }
    _bad(a.mutation("claims.createPartnerProfileDraft", {**body, "isaId": "X" * 16}), "isaId")
    _bad(a.mutation("claims.createPartnerProfileDraft", {**body, "kind": "bank"}), "kind")
    draft = a.mutation("claims.createPartnerProfileDraft", body).data
    assert draft["status"] == "draft" and draft["authorUserId"] == team.admin.user_id
    assert a.mutation("claims.createPartnerProfileDraft", body).code == "CONFLICT"
    own = a.mutation("claims.reviewPartnerProfile", {"id": draft["id"], "decision": "approved"})
    assert own.code == "FORBIDDEN" and "someone else" in own.error["message"]
    assert team.specialist.rpc.mutation(
        "claims.reviewPartnerProfile", {"id": draft["id"], "decision": "approved"}
    ).code == ("FORBIDDEN")
    _bad(m.mutation("claims.reviewPartnerProfile", {"id": draft["id"], "decision": "maybe"}), "decision")
    approved = m.mutation(
        "claims.reviewPartnerProfile", {"id": draft["id"], "decision": "approved", "reason": "ids checked"}
    ).data
    assert approved["status"] == "approved" and approved["reviewedBy"] == team.manager.user_id
    _wrong_state(a.mutation("claims.reviewPartnerProfile", {"id": draft["id"], "decision": "rejected"}), "approved")
    assert m.mutation("claims.reviewPartnerProfile", {"id": 10**12, "decision": "approved"}).code == "NOT_FOUND"


def test_external_actions_are_prepared_never_sent(team):
    a, m = team.admin.rpc, team.manager.rpc
    claim_id = _create(team.admin, key="PCN-ACTION-1")["id"]
    action = {"id": claim_id, "targetSystem": "clearinghouse", "action": "submit_claim"}
    _bad(a.mutation("claims.prepareExternalAction", {**action, "action": "send_now"}), "action")
    _wrong_state(a.mutation("claims.prepareExternalAction", action), "draft")
    none_attached = a.mutation("claims.prepareExternalAction", {**action, "action": "send_attachments"})
    assert none_attached.code == "PRECONDITION_FAILED" and "attachment" in none_attached.error["message"]
    _to_approved(team, claim_id)
    partner = a.mutation(
        "claims.createPartnerProfileDraft",
        {"name": "CH Two", "kind": "clearinghouse", "isaQualifier": "ZZ", "isaId": "CH2", "gsId": "CH2GS"},
    ).data
    unapproved = a.mutation("claims.prepareExternalAction", {**action, "partnerProfileId": partner["id"]})
    _wrong_state(unapproved, "draft")
    m.mutation("claims.reviewPartnerProfile", {"id": partner["id"], "decision": "approved"}).data
    prepared = a.mutation("claims.prepareExternalAction", {**action, "partnerProfileId": partner["id"]}).data
    assert prepared["status"] == "prepared" and len(prepared["payloadSha256"]) == 64
    payload = prepared["payload"]
    assert payload["claim"]["claimKey"] == "PCN-ACTION-1" and payload["claim"]["totalCharge"] == "150.50"
    assert payload["partner"]["isaId"] == "CH2" and payload["action"] == "submit_claim"
    again = a.mutation("claims.prepareExternalAction", {**action, "partnerProfileId": partner["id"]}).data
    assert again["id"] == prepared["id"]
    _wrong_state(
        a.mutation("claims.prepareExternalAction", {**action, "action": "claim_status_inquiry"}),
        ("approved_for_submission_preparation"),
    )
    assert [x["id"] for x in _get(team.admin, claim_id)["externalActions"]] == [prepared["id"]]


def test_denial_link_needs_a_case_of_the_claim(team, services):
    a = team.admin.rpc
    claim_id = _create(team.admin, key="PCN-DEN-1")["id"]
    missing = a.mutation("claims.prepareDenialLink", {"id": claim_id})
    assert missing.code == "NOT_FOUND" and "PCN-DEN-1" not in missing.error["message"]
    with services.database.transaction() as db:
        case = DenialCase(
            organization_id=team.admin.organization_id,
            client_id=team.admin.client_id,
            denial_key="d" * 64,
            origin="manual",
            event_kind="denial",
            claim_key="PCN-DEN-1",
            payer="ACME HEALTH",
            amount_at_stake=Decimal("120.00"),
            state_changed_at=datetime.now(UTC),
            denial_category="authorization",
        )
        db.add(case)
        db.flush()
        case_id = case.id
    linked = a.mutation("claims.prepareDenialLink", {"id": claim_id}).data
    assert [(x["kind"], x["targetId"], x["reference"]) for x in linked["links"]] == [
        ("denial_case", case_id, "ACME HEALTH")
    ]
    assert linked["links"][0]["details"]["denialCategory"] == "authorization"
    again = a.mutation("claims.prepareDenialLink", {"id": claim_id, "caseId": case_id}).data
    assert [x["id"] for x in again["links"]] == [x["id"] for x in linked["links"]]
    assert a.mutation("claims.prepareDenialLink", {"id": claim_id, "caseId": case_id + 1000}).code == "NOT_FOUND"
    assert len(_get(team.admin, claim_id)["links"]) == 1


def test_era_link_summarises_the_remittance_history(team):
    a = team.admin.rpc
    claim_id = _create(team.admin, key="HAND-001")["id"]
    empty = a.mutation("claims.prepareEraLink", {"id": claim_id}).data
    assert (empty["entries"], empty["links"], empty["paidTotal"]) == (0, [], "0.00")
    data = (X12_FIXTURES / "hand" / "balanced_230.835").read_bytes()
    up = a.mutation(
        "ingestion.uploadEra", {"filename": "b.835", "contentBase64": base64.b64encode(data).decode()}
    ).data["batch"]
    assert a.mutation("ingestion.confirmImportBatch", {"batchId": up["id"]}).data["batch"]["status"] == "confirmed"
    era = a.mutation("claims.prepareEraLink", {"id": claim_id}).data
    # HAND-001: billed 200.00, paid 150.00, CO-45 50.00 (the fixture's README, by hand)
    assert era["batchIds"] == [up["id"]] and era["payers"] == ["HAND PAYER"]
    assert (era["entries"], era["paidTotal"], era["deniedTotal"]) == (2, "150.00", "0.00")
    assert (era["adjustmentTotal"], era["patientResponsibilityTotal"]) == ("50.00", "0.00")
    assert era["lastPaymentDate"] == "2026-11-01"
    assert [(x["kind"], x["targetId"], x["reference"]) for x in era["links"]] == [("era", up["id"], "HAND PAYER")]
    assert _get(team.admin, claim_id)["state"] == "draft"  # a remittance never moves an unsubmitted claim


def test_other_tenants_never_see_or_touch_a_claim(team, make_member):
    claim_id = _create(team.admin)["id"]
    intruder = make_member()
    assert intruder.rpc.query("claims.get", {"id": claim_id}).code == "NOT_FOUND"
    assert intruder.rpc.query("claims.list", {}).data["items"] == []
    for proc, body in [
        ("claims.review", {"id": claim_id}),
        ("claims.withdraw", {"id": claim_id, "reason": "not mine"}),
        ("claims.recordFinancialAmount", {"id": claim_id, "kind": "paid", "amount": "1.00", "source": "manual"}),
        ("claims.prepareEraLink", {"id": claim_id}),
        ("claims.simulateSyntheticSubmission", {"id": claim_id}),
    ]:
        assert intruder.rpc.mutation(proc, body).code == "NOT_FOUND", proc
    crossing = intruder.rpc.as_(intruder.token, team.admin.client_id)
    assert crossing.query("claims.get", {"id": claim_id}).code == "FORBIDDEN"
    assert _get(team.admin, claim_id)["state"] == "draft"


def test_read_only_roles_cannot_change_claims(team, services, rpc):
    from tests.integration.api.denials.claims.conftest import _join

    auditor = _join(services, rpc, team.admin, "auditor")
    claim_id = _create(team.admin)["id"]
    assert auditor.rpc.query("claims.get", {"id": claim_id}).data["id"] == claim_id
    assert auditor.rpc.mutation("claims.create", claim_body()).code == "FORBIDDEN"
    assert auditor.rpc.mutation("claims.review", {"id": claim_id}).code == "FORBIDDEN"
