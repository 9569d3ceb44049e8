"""aiPlatform, aiGovernance, policyProof and operationalControl over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from api.denials.cases.models import CaseEvent
from api.integrations.operational_control.scopes import TASKS
from api.platform.activation_governance.gates import GATE_NAMES
from tests.integration.api.automation.conftest import (
    AUTO,
    ai_case,
    case_category,
    execute_task,
    pass_gates,
    record_policy,
)
from tests.integration.api.evidence.conftest import attach_json


def test_automation_stays_off_until_every_activation_gate_passed(make_member):
    member = make_member(role="admin")
    refused = record_policy(member, "classify_denial")
    assert refused.code == "PRECONDITION_FAILED" and "data_validated" in refused.error["message"]
    member.rpc.mutation("operationalControl.pause", {"reason": "before go-live"}).data
    resume = member.rpc.mutation("operationalControl.resume", {"reason": "go live"})
    assert resume.code == "PRECONDITION_FAILED" and "pipeline_dry_run_clean" in resume.error["message"]
    pass_gates(member, GATE_NAMES[:-1])
    still = member.rpc.mutation("operationalControl.resume", {"reason": "go live"})
    assert still.code == "PRECONDITION_FAILED" and "data_validated" not in still.error["message"]
    assert GATE_NAMES[-1] in still.error["message"]
    pass_gates(member, GATE_NAMES[-1:])
    member.rpc.mutation("operationalControl.resume", {"reason": "go live"}).data
    assert record_policy(member, "classify_denial").data["version"] == 1


def test_every_task_runs_offline_and_without_a_policy_is_only_suggested(services, admin):
    case_id = ai_case(services, admin)
    attach_json(
        admin.rpc, b"Prior authorization approved on file. Reference AUTH-1.", "auth.txt", caseId=case_id, title="Auth"
    )
    for task in TASKS:
        ran = execute_task(admin, task, case_id).data
        assert (ran["task"], ran["provider"], ran["decision"], ran["state"]) == (task, "offline", "queued", "queued")
        assert ran["reasons"] == ["no_policy"] and ran["policyVersion"] is None and ran["effect"] == {}
        assert 0.0 <= ran["confidence"] <= 1.0 and ran["output"] is not None
        assert "case" in ran["inputDigests"] and len(ran["proofDigest"]) == 64
    assert case_category(services, case_id) is None
    by_task = {e["task"]: e for e in admin.rpc.query("aiPlatform.listExecutions", {"caseId": case_id}).data["items"]}
    assert by_task["classify_denial"]["output"]["category"] == "authorization"
    assert by_task["classify_denial"]["confidence"] == 0.95
    assert "Prior authorization approved" in by_task["summarise_evidence"]["output"]["documents"][0]["gist"]
    assert "evidence" in by_task["summarise_evidence"]["inputDigests"]
    assert "NORTHWIND HEALTH PLAN" in by_task["draft_appeal_letter"]["output"]["text"]
    assert by_task["predict_overturn"]["output"]["basis"] == "global"  # no decisions recorded yet
    assert by_task["predict_overturn"]["confidence"] == 0.5 and "model" in by_task["predict_overturn"]["inputDigests"]
    assert by_task["suggest_next_action"]["label"] == "classify_denial"  # no category on the case yet


def test_auto_policy_applies_classification_suggest_and_off_do_not(services, admin):
    case_id = ai_case(services, admin)
    assert record_policy(admin, "classify_denial", mode="suggest_only").data["version"] == 1
    assert execute_task(admin, "classify_denial", case_id).data["reasons"] == ["suggest_only"]
    assert case_category(services, case_id) is None
    off = record_policy(admin, "classify_denial", mode="off").data
    assert off["version"] == 2
    refused = execute_task(admin, "classify_denial", case_id).data
    assert (refused["decision"], refused["reasons"], refused["output"]) == ("refused", ["policy_off"], None)
    assert record_policy(admin, "classify_denial").data["version"] == 3
    applied = execute_task(admin, "classify_denial", case_id).data
    assert (applied["decision"], applied["policyVersion"]) == ("applied", 3)
    assert applied["effect"] == {"kind": "case_category", "from": None, "to": "authorization"}
    assert case_category(services, case_id) == "authorization"
    with services.database.transaction() as db:
        kinds = db.scalars(select(CaseEvent.kind).where(CaseEvent.case_id == case_id)).all()
    assert kinds == ["ai_applied"]
    # thresholds: more money at stake than allowed -> queued
    big = ai_case(services, admin, amount_at_stake=Decimal("9000.00"))
    assert execute_task(admin, "classify_denial", big).data["reasons"] == ["amount_above_maximum"]
    assert case_category(services, big) is None
    versions = [p["version"] for p in admin.rpc.query("aiPlatform.listPolicies", {"task": "classify_denial"}).data]
    assert versions == [3, 2, 1]


def test_pause_then_execute_is_never_applied_for_any_task(services, admin):
    case_id = ai_case(services, admin)
    for task in TASKS:
        assert record_policy(admin, task).code is None
    admin.rpc.mutation("operationalControl.pause", {"reason": "incident 42 under review"}).data
    for task in TASKS:
        ran = execute_task(admin, task, case_id).data
        assert ran["decision"] == "queued" and "client_paused" in ran["reasons"], task
    assert case_category(services, case_id) is None
    state = admin.rpc.mutation("operationalControl.resume", {"reason": "incident closed"}).data
    assert state["clientPaused"] is False and [h["action"] for h in state["history"]] == ["resume", "pause"]
    # a task's own pause
    admin.rpc.mutation("operationalControl.pause", {"task": "classify_denial", "reason": "bad labels seen"}).data
    assert execute_task(admin, "classify_denial", case_id).data["reasons"] == ["task_paused"]
    assert execute_task(admin, "suggest_next_action", case_id).data["decision"] == "applied"
    gate = admin.rpc.query("aiPlatform.autonomySafetyGate", {"task": "classify_denial", "caseId": case_id}).data
    assert (gate["outcome"], gate["pauses"], gate["confidenceAssumed"]) == ("queued", ["task_paused"], True)
    assert admin.rpc.query("operationalControl.state", {}).data["pausedTasks"] == ["classify_denial"]


def test_pausing_twice_keeps_one_pause_and_resuming_what_is_not_paused_is_refused(admin):
    first = admin.rpc.mutation("operationalControl.pause", {"reason": "first stop"}).data
    again = admin.rpc.mutation("operationalControl.pause", {"reason": "second stop"}).data
    assert again["pauses"] == first["pauses"] and len(again["history"]) == 1
    assert admin.rpc.mutation(
        "operationalControl.resume", {"task": "predict_overturn", "reason": "not paused"}
    ).code == ("PRECONDITION_FAILED")


def test_resume_and_auto_mode_are_refused_while_a_registered_blocker_objects(services, admin):
    admin.rpc.mutation("operationalControl.pause", {"reason": "waiting for go-live"}).data

    def blocker(db):
        return ["activation gate 'evidence retention' is not approved", "go-live checklist incomplete"]

    services.resume_blockers.subscribe(blocker)
    try:
        refused = admin.rpc.mutation("operationalControl.resume", {"reason": "try"})
        assert refused.code == "PRECONDITION_FAILED"
        assert "evidence retention" in refused.error["message"] and "checklist" in refused.error["message"]
        assert admin.rpc.query("operationalControl.state", {}).data["clientPaused"] is True
        auto = record_policy(admin, "classify_denial")
        assert auto.code == "PRECONDITION_FAILED" and "checklist" in auto.error["message"]
        assert record_policy(admin, "classify_denial", mode="suggest_only").code is None  # not automatic: allowed
    finally:
        services.resume_blockers.unsubscribe(blocker)
    assert admin.rpc.mutation("operationalControl.resume", {"reason": "gates approved"}).data["clientPaused"] is False


def test_other_tenants_cases_executions_and_pauses_are_not_theirs(services, make_member):
    a, b = make_member(), make_member()
    pass_gates(a)
    pass_gates(b)
    a_case = ai_case(services, a)
    ran = execute_task(a, "classify_denial", a_case).data
    assert execute_task(b, "classify_denial", a_case).code == "NOT_FOUND"
    assert b.rpc.query("aiPlatform.autonomySafetyGate", {"task": "classify_denial", "caseId": a_case}).code == (
        "NOT_FOUND"
    )
    assert b.rpc.query("policyProof.forAction", {"executionId": ran["id"]}).code == "NOT_FOUND"
    assert b.rpc.query("policyProof.verify", {"executionId": ran["id"]}).code == "NOT_FOUND"
    assert b.rpc.mutation("aiPlatform.recordEvaluation", {"executionId": ran["id"], "actual": "x"}).code == "NOT_FOUND"
    assert b.rpc.query("aiPlatform.listExecutions", {}).data["items"] == []
    a.rpc.mutation("operationalControl.pause", {"reason": "only a"}).data
    assert b.rpc.query("operationalControl.state", {}).data["clientPaused"] is False
    record_policy(b, "classify_denial").data
    b_case = ai_case(services, b)
    assert execute_task(b, "classify_denial", b_case).data["decision"] == "applied"  # a's pause is a's alone
    crossing = b.rpc.as_(b.token, a.client_id)
    assert crossing.mutation("operationalControl.resume", {"reason": "not mine"}).code in ("FORBIDDEN", "NOT_FOUND")
    assert a.rpc.query("operationalControl.state", {}).data["clientPaused"] is True


def test_roles_pause_needs_write_resume_and_policy_need_manage(services, make_member):
    from tests.support.denial_case_rows import add_colleague

    admin = make_member()
    specialist = add_colleague(services, admin.rpc, admin, role="specialist")
    auditor = add_colleague(services, admin.rpc, admin, role="auditor")
    assert specialist.rpc.mutation("operationalControl.pause", {"reason": "looks wrong"}).code is None
    assert specialist.rpc.mutation("operationalControl.resume", {"reason": "fine now"}).code == "FORBIDDEN"
    assert specialist.rpc.mutation("aiPlatform.recordAutonomyPolicy", {"task": "classify_denial", **AUTO}).code == (
        "FORBIDDEN"
    )
    assert auditor.rpc.mutation("operationalControl.pause", {"reason": "x y z"}).code == "FORBIDDEN"
    assert auditor.rpc.query("operationalControl.state", {}).data["clientPaused"] is True


@pytest.mark.parametrize(
    ("procedure", "body", "field"),
    [
        ("aiPlatform.execute", {"task": "write_poem", "caseId": 1}, "task"),
        ("aiPlatform.execute", {"task": "classify_denial", "caseId": 0}, "caseId"),
        ("aiPlatform.recordAutonomyPolicy", {**AUTO, "task": "classify_denial", "mode": "always"}, "mode"),
        ("aiPlatform.recordAutonomyPolicy", {**AUTO, "task": "classify_denial", "minConfidence": 1.5}, "minConfidence"),
        (
            "aiPlatform.recordAutonomyPolicy",
            {**AUTO, "task": "classify_denial", "maxAmountAtStake": "-1.00"},
            "maxAmountAtStake",
        ),
        ("aiPlatform.recordEvaluation", {"actual": "a b"}, "actual"),
        ("aiPlatform.recordEvaluation", {"actual": "coding"}, "executionId"),
        ("aiPlatform.recordEvaluation", {"actual": "coding", "executionId": 1, "predicted": "x"}, "executionId"),
        ("operationalControl.pause", {"reason": ""}, "reason"),
        ("operationalControl.pause", {"task": "everything", "reason": "stop now"}, "task"),
        ("aiGovernance.update", {"task": "classify_denial", "enabled": "maybe", "reason": "abc"}, "enabled"),
    ],
)
def test_bad_input_is_bad_request(admin, procedure, body, field):
    result = admin.rpc.mutation(procedure, body)
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"]


def test_bad_queries_are_bad_request(admin):
    assert admin.rpc.query("aiPlatform.decideAutonomy", {"task": "classify_denial", "confidence": 2}).code == (
        "BAD_REQUEST"
    )
    assert admin.rpc.query("aiPlatform.evaluationMetrics", {"task": "nope"}).code == "BAD_REQUEST"
