"""activationGovernance.* over the wire, on SQLite and PostgreSQL: the status is ready only once every
gate's latest recording passed; gates belong to one client; activation_blockers reads the same."""

from __future__ import annotations

from api.infra.db.tenant_filter import TenantScope, set_scope
from api.platform.activation_governance.gates import GATE_NAMES
from api.platform.activation_governance.service import activation_blockers
from tests.support.denial_case_rows import add_colleague


def _record(member_rpc, gate: str, passed: bool = True, **extra):
    body = {"gate": gate, "passed": passed, "evidence": f"Checked {gate} with the client", **extra}
    return member_rpc.mutation("activationGovernance.recordGate", body)


def _blockers(services, member) -> list[str]:
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return activation_blockers(db)


def test_status_is_ready_only_when_every_gate_passed(services, make_member):
    admin = make_member()
    status = admin.rpc.query("activationGovernance.status").data
    assert status == {
        "clientId": admin.client_id,
        "ready": False,
        "passed": 0,
        "total": 5,
        "blockers": list(GATE_NAMES),
    }
    assert _blockers(services, admin) == list(GATE_NAMES)
    for gate in GATE_NAMES[:-1]:
        _record(admin.rpc, gate, reference="TICKET-12").data
        assert admin.rpc.query("activationGovernance.status").data["ready"] is False
    assert _blockers(services, admin) == ["pipeline_dry_run_clean"]
    recorded = _record(admin.rpc, "pipeline_dry_run_clean").data
    assert recorded["recordedByUserId"] == admin.user_id and recorded["passed"] is True
    assert admin.rpc.query("activationGovernance.status").data == {
        "clientId": admin.client_id,
        "ready": True,
        "passed": 5,
        "total": 5,
        "blockers": [],
    }
    assert _blockers(services, admin) == []

    # The latest recording wins: a failed re-check blocks again.
    _record(admin.rpc, "users_trained", passed=False, evidence="Two new billers not trained yet").data
    status = admin.rpc.query("activationGovernance.status").data
    assert (status["ready"], status["blockers"]) == (False, ["users_trained"])
    checklist = {g["gate"]: g for g in admin.rpc.query("activationGovernance.checklist").data["gates"]}
    assert list(checklist) == list(GATE_NAMES)
    trained = checklist["users_trained"]
    assert (trained["state"], trained["passed"], trained["recordings"]) == ("failed", False, 2)
    assert trained["evidence"] == "Two new billers not trained yet" and trained["reference"] is None
    assert checklist["data_validated"]["reference"] == "TICKET-12"
    assert (
        checklist["data_validated"]["recordedByUserId"] == admin.user_id and checklist["data_validated"]["recordedAt"]
    )


def test_gates_belong_to_one_client(services, make_member):
    admin = make_member()
    for gate in GATE_NAMES:
        _record(admin.rpc, gate).data
    other_client = admin.rpc.mutation("organizations.addClient", {"name": "Second Facility"}).data["id"]
    in_other = admin.rpc.as_(admin.token, other_client)
    assert in_other.query("activationGovernance.status").data["blockers"] == list(GATE_NAMES)
    states = {g["state"] for g in in_other.query("activationGovernance.checklist").data["gates"]}
    assert states == {"not_recorded"}
    intruder = make_member()
    assert intruder.rpc.query("activationGovernance.status").data["ready"] is False
    crossing = intruder.rpc.as_(intruder.token, admin.client_id)
    assert crossing.mutation(
        "activationGovernance.recordGate", {"gate": "users_trained", "passed": False, "evidence": "hostile"}
    ).code in (
        "FORBIDDEN",
        "NOT_FOUND",
    )
    assert admin.rpc.query("activationGovernance.status").data["ready"] is True


def test_only_admins_record_gates_and_bad_input_names_the_field(services, rpc, make_member):
    admin = make_member()
    manager = add_colleague(services, rpc, admin, role="manager")
    assert _record(manager.rpc, "users_trained").code == "FORBIDDEN"
    assert manager.rpc.query("activationGovernance.checklist").data["gates"][0]["state"] == "not_recorded"
    bad_gate = _record(admin.rpc, "vibes_checked")
    assert bad_gate.code == "BAD_REQUEST" and "gate" in [i["path"] for i in bad_gate.error["data"]["issues"]]
    no_evidence = _record(admin.rpc, "users_trained", evidence="")
    assert no_evidence.code == "BAD_REQUEST" and "evidence" in [i["path"] for i in no_evidence.error["data"]["issues"]]
    not_bool = _record(admin.rpc, "users_trained", passed="perhaps")
    assert not_bool.code == "BAD_REQUEST" and "passed" in [i["path"] for i in not_bool.error["data"]["issues"]]
