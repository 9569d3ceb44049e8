"""837 upload + confirm records submitted claims; an 835 confirm adjudicates them (real wire, both databases)."""

from __future__ import annotations

import base64

from api.denials.claims.intake import claims_from_batch
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.paths import X12_FIXTURES


def _upload(member, name: str) -> dict:
    data = (X12_FIXTURES / "hand" / name).read_bytes()
    body = {"filename": name, "contentBase64": base64.b64encode(data).decode()}
    return member.rpc.mutation("ingestion.uploadUniversal", body).data["batch"]


def _confirm(member, batch_id: int) -> dict:
    return member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch_id}).data["batch"]


def _claims(member) -> dict[str, dict]:
    items = member.rpc.query("claims.list", {"limit": 500}).data["items"]
    return {c["claimKey"]: c for c in items}


def test_an_837_confirm_creates_submitted_claims_once(make_member, services):
    member = make_member()
    batch = _upload(member, "kpi_claims_jan.837")
    assert batch["kind"] == "claims_837" and batch["status"] == "parsed"
    assert _claims(member) == {}  # nothing before the confirm
    assert _confirm(member, batch["id"])["status"] == "confirmed"
    claims = _claims(member)
    # kpi_claims_jan.837, by hand: four CLMs of KPI PAYER A (KPA01), one SV2 line each
    assert {k: c["totalCharge"] for k, c in claims.items()} == {
        "KPI-001": "1000.00",
        "KPI-002": "500.00",
        "KPI-003": "400.00",
        "KPI-004": "300.00",
    }
    first = member.rpc.query("claims.get", {"id": claims["KPI-001"]["id"]}).data
    assert (first["state"], first["origin"], first["sourceBatchId"]) == ("submitted", "837", batch["id"])
    assert (first["payer"], first["payerId"], first["facilityType"], first["billType"]) == (
        "KPI PAYER A",
        "KPA01",
        "13",
        "131",
    )
    assert (first["statementFrom"], first["statementTo"], first["diagnosisCodes"]) == (
        "2025-01-05",
        "2025-01-10",
        ["R51"],
    )
    assert first["patientRef"].startswith("pt_") and "JANE" not in first["patientRef"]
    assert [(ln["procedureCode"], ln["revenueCode"], ln["charge"]) for ln in first["lines"]] == [
        ("99284", "0450", "1000.00")
    ]
    assert [(t["fromState"], t["toState"], t["actorUserId"]) for t in first["transitions"]] == [
        (None, "submitted", member.user_id)
    ]
    # the listener again on the same batch (a re-run) changes nothing
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        again = claims_from_batch(db, batch["id"])
    assert (again.created, again.unchanged) == (0, 4)
    assert len(_claims(member)) == 4
    assert len(member.rpc.query("claims.get", {"id": claims["KPI-001"]["id"]}).data["transitions"]) == 1


def test_an_837_submits_a_claim_approved_for_submission_preparation(team):
    a, m = team.admin.rpc, team.manager.rpc
    from tests.integration.api.denials.claims.conftest import claim_body

    manual = a.mutation("claims.create", claim_body("KPI-002")).data
    draft = a.mutation("claims.create", claim_body("KPI-003")).data
    a.mutation("claims.review", {"id": manual["id"]}).data
    m.mutation("claims.requestSubmissionPreparation", {"id": manual["id"]}).data
    a.mutation("claims.approveForSubmissionPreparation", {"id": manual["id"]}).data
    batch = _upload(team.admin, "kpi_claims_jan.837")
    _confirm(team.admin, batch["id"])
    claims = _claims(team.admin)
    assert set(claims) == {"KPI-001", "KPI-002", "KPI-003", "KPI-004"}
    assert (claims["KPI-002"]["state"], claims["KPI-002"]["origin"]) == ("submitted", "manual")
    assert claims["KPI-002"]["sourceBatchId"] == batch["id"]
    assert claims["KPI-003"]["state"] == "draft" and claims["KPI-003"]["id"] == draft["id"]  # not submitted by us


def test_an_835_confirm_adjudicates_submitted_claims(make_member):
    member = make_member()
    _confirm(member, _upload(member, "kpi_claims_jan.837")["id"])
    era = _upload(member, "kpi_era_feb.835")
    assert era["status"] == "parsed"
    _confirm(member, era["id"])
    claims = _claims(member)
    # kpi_era_feb.835 by hand: KPI-001 paid 700 (CO-45, PR-2 100), KPI-002 denied CLP02=4,
    # KPI-003 paid 250 with a CO-16 denial of 50 (PR-2 50); KPI-004 not remitted
    assert {k: c["state"] for k, c in claims.items()} == {
        "KPI-001": "adjudicated_paid",
        "KPI-002": "adjudicated_denied",
        "KPI-003": "adjudicated_partially_paid",
        "KPI-004": "submitted",
    }
    third = member.rpc.query("claims.get", {"id": claims["KPI-003"]["id"]}).data
    assert [(x["kind"], x["amount"], x["source"]) for x in third["amounts"]] == [
        ("paid", "250.00", "remittance"),
        ("patient", "50.00", "remittance"),
    ]
    assert third["transitions"][-1]["reason"] == f"remittance in import batch {era['id']}"
    closed = member.rpc.mutation("claims.close", {"id": claims["KPI-002"]["id"]}).data
    assert closed["state"] == "closed" and closed["allowedMoves"] == []
    refused = member.rpc.mutation("claims.close", {"id": claims["KPI-004"]["id"]})
    assert refused.code == "PRECONDITION_FAILED" and "'submitted'" in refused.error["message"]
