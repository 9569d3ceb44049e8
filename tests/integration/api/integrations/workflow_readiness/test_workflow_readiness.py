"""workflowReadiness.assess over the wire, on SQLite and PostgreSQL: an empty client can only upload; a
client with a specialist, a confirmed 835 with denials, payer rules and its gates passed can do everything."""

from __future__ import annotations

import base64

from api.money.reconciliation.models import PayerAlias
from api.platform.activation_governance.gates import GATE_NAMES
from tests.support.denial_case_rows import add_colleague
from tests.support.paths import X12_FIXTURES


def _assess(member_rpc) -> tuple[dict, dict[str, dict]]:
    out = member_rpc.query("workflowReadiness.assess").data
    return out, {w["workflow"]: w for w in out["workflows"]}


def _codes(workflow: dict) -> list[str]:
    return [b["code"] for b in workflow["blockers"]]


def test_an_empty_client_can_only_upload(make_member):
    admin = make_member()
    out, workflows = _assess(admin.rpc)
    assert out["clientId"] == admin.client_id and out["ready"] == ["upload_and_reconcile_remittances"]
    assert _codes(workflows["work_denial_cases"]) == ["no_specialist", "no_confirmed_remittance"]
    assert _codes(workflows["assemble_appeals"]) == ["no_specialist", "no_confirmed_remittance", "no_payer_rules"]
    assert _codes(workflows["automation"]) == ["activation_gates_not_passed", "no_confirmed_remittance"]
    assert all(b["sentence"] for w in workflows.values() for b in w["blockers"])
    assert out["facts"]["activationBlockers"] == list(GATE_NAMES)


def test_a_populated_client_can_do_everything(services, rpc, make_member):
    admin = make_member()
    add_colleague(services, rpc, admin, role="specialist")
    data = (X12_FIXTURES / "hand" / "kpi_era_feb.835").read_bytes()
    body = {"filename": "kpi_era_feb.835", "contentBase64": base64.b64encode(data).decode()}
    batch = admin.rpc.mutation("ingestion.uploadUniversal", body).data["batch"]
    admin.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}).data
    with services.database.transaction() as db:
        db.add(
            PayerAlias(
                organization_id=admin.organization_id,
                client_id=admin.client_id,
                alias_kind="payer_name",
                alias="NORTHWIND",
                canonical_payer_key="NORTHWIND HEALTH PLAN",
            )
        )
    out, workflows = _assess(admin.rpc)
    assert out["facts"]["confirmedRemittances"] >= 1 and out["facts"]["denialCases"] >= 1
    assert out["ready"] == ["upload_and_reconcile_remittances", "work_denial_cases", "assemble_appeals"]
    assert _codes(workflows["automation"]) == ["activation_gates_not_passed"]
    for gate in GATE_NAMES:
        admin.rpc.mutation("activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "Done"}).data
    out, workflows = _assess(admin.rpc)
    assert len(out["ready"]) == 4 and all(w["sentence"].startswith("Ready") for w in workflows.values())
    # another client of the same organization sees none of it but the members
    other = admin.rpc.mutation("organizations.addClient", {"name": "Second Facility"}).data["id"]
    facts = admin.rpc.as_(admin.token, other).query("workflowReadiness.assess").data["facts"]
    assert (facts["specialists"], facts["confirmedRemittances"], facts["denialCases"], facts["payerAliases"]) == (
        1,
        0,
        0,
        0,
    )
