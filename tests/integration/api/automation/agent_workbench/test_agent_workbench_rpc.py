"""agentWorkbench over the wire, on SQLite and PostgreSQL: the queue, accept and reject once, replay
under another policy or knowledge version; tenancy, roles and bad input."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from api.automation.agent_workbench import service as workbench
from api.automation.ai_platform import service as platform
from api.automation.ai_platform.models import AiExecution
from api.core.errors import PreconditionFailed
from api.denials.cases.models import CaseEvent, DenialCase
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.denial_case_rows import add_colleague, make_case


def _case(services, member, **values):
    return make_case(
        services, member.organization_id, member.client_id, **{"carc": "197", "group_code": "CO", **values}
    )


def _execute(member_rpc, task, case_id):
    return member_rpc.mutation("aiPlatform.execute", {"task": task, "caseId": case_id}).data


def _category(services, case_id):
    with services.database.transaction() as db:
        return db.scalar(select(DenialCase.denial_category).where(DenialCase.id == case_id))


def _events(services, case_id):
    with services.database.transaction() as db:
        return db.scalars(select(CaseEvent.kind).where(CaseEvent.case_id == case_id)).all()


def test_queue_lists_only_the_clients_queued_executions(services, make_member):
    admin = make_member(role="admin")
    other = make_member(role="admin")
    case_id = _case(services, admin)
    classified = _execute(admin.rpc, "classify_denial", case_id)
    suggested = _execute(admin.rpc, "suggest_next_action", case_id)
    admin.rpc.mutation(
        "aiPlatform.recordAutonomyPolicy",
        {"task": "summarise_evidence", "mode": "off", "maxAmountAtStake": "10.00", "reason": "not yet"},
    ).data
    assert _execute(admin.rpc, "summarise_evidence", case_id)["state"] == "refused"
    _execute(other.rpc, "classify_denial", _case(services, other))

    page = admin.rpc.query("agentWorkbench.queue", {}).data
    assert [i["id"] for i in page["items"]] == [suggested["id"], classified["id"]] and page["nextCursor"] is None
    item = page["items"][1]
    assert (item["caseId"], item["task"], item["label"], item["reasons"]) == (
        case_id,
        "classify_denial",
        "authorization",
        ["no_policy"],
    )
    assert item["confidence"] == 0.95 and item["policyVersion"] is None
    only = admin.rpc.query("agentWorkbench.queue", {"task": "classify_denial", "limit": 1}).data
    assert [i["id"] for i in only["items"]] == [classified["id"]]
    first = admin.rpc.query("agentWorkbench.queue", {"limit": 1}).data
    rest = admin.rpc.query("agentWorkbench.queue", {"limit": 1, "cursor": first["nextCursor"]}).data
    assert [i["id"] for i in first["items"] + rest["items"]] == [suggested["id"], classified["id"]]


def test_accept_applies_once_even_while_paused_and_reject_applies_nothing(services, make_member):
    admin = make_member(role="admin")
    case_id = _case(services, admin)
    admin.rpc.mutation("operationalControl.pause", {"reason": "incident under review"}).data
    queued = _execute(admin.rpc, "classify_denial", case_id)
    assert queued["state"] == "queued" and "client_paused" in queued["reasons"]

    accepted = admin.rpc.mutation(
        "agentWorkbench.accept", {"executionId": queued["id"], "reason": "the CARC says authorization"}
    ).data
    assert (accepted["state"], accepted["decision"], accepted["reviewerUserId"]) == (
        "accepted",
        "accept",
        admin.user_id,
    )
    assert accepted["effect"] == {"kind": "case_category", "from": None, "to": "authorization"}
    assert _category(services, case_id) == "authorization" and _events(services, case_id) == ["ai_applied"]
    again = admin.rpc.mutation("agentWorkbench.accept", {"executionId": queued["id"], "reason": "twice"})
    assert again.code == "PRECONDITION_FAILED" and "accepted" in again.error["message"]
    late = admin.rpc.mutation("agentWorkbench.reject", {"executionId": queued["id"], "reason": "too late"})
    assert late.code == "PRECONDITION_FAILED"
    assert _events(services, case_id) == ["ai_applied"]
    proof = admin.rpc.query("policyProof.verify", {"executionId": queued["id"]}).data
    assert proof["matches"] is True
    assert admin.rpc.query("agentWorkbench.queue", {}).data["items"] == []

    other_case = _case(services, admin)
    second = _execute(admin.rpc, "classify_denial", other_case)
    rejected = admin.rpc.mutation("agentWorkbench.reject", {"executionId": second["id"], "reason": "wrong code"}).data
    assert (rejected["state"], rejected["effect"]) == ("rejected", {})
    assert _category(services, other_case) is None and _events(services, other_case) == []
    assert admin.rpc.mutation("agentWorkbench.reject", {"executionId": second["id"], "reason": "again"}).code == (
        "PRECONDITION_FAILED"
    )
    assert admin.rpc.query("policyProof.verify", {"executionId": second["id"]}).data["matches"] is True
    states = admin.rpc.query("aiPlatform.listExecutions", {"state": "rejected"}).data["items"]
    assert [e["id"] for e in states] == [second["id"]]


def test_a_review_that_lost_the_race_applies_nothing(services, make_member):
    """Another reviewer's decision lands between reading the execution and claiming it: the conditional
    UPDATE finds it no longer queued, so nothing is applied."""
    admin = make_member(role="admin")
    case_id = _case(services, admin)
    queued = _execute(admin.rpc, "classify_denial", case_id)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(admin.organization_id, admin.client_id))
        stale = platform.get_execution(db, queued["id"])
        db.execute(
            update(AiExecution)
            .where(AiExecution.id == queued["id"])
            .values(state="rejected")
            .execution_options(synchronize_session=False)
        )
        assert stale.state == "queued"  # what this reviewer still sees
        with pytest.raises(PreconditionFailed, match="reviewed once"):
            workbench.accept(db, queued["id"], reason="mine first", user_id=admin.user_id, key=b"k")
        db.rollback()
    assert _category(services, case_id) is None and _events(services, case_id) == []


def test_an_applied_or_refused_execution_is_never_reviewed(services, make_member):
    admin = make_member(role="admin")
    case_id = _case(services, admin)
    admin.rpc.mutation(
        "aiPlatform.recordAutonomyPolicy",
        {"task": "classify_denial", "mode": "off", "maxAmountAtStake": "10.00", "reason": "off for now"},
    ).data
    refused = _execute(admin.rpc, "classify_denial", case_id)
    got = admin.rpc.mutation("agentWorkbench.accept", {"executionId": refused["id"], "reason": "apply anyway"})
    assert got.code == "PRECONDITION_FAILED" and "refused" in got.error["message"]


def test_replay_under_another_policy_version_decides_differently(services, make_member):
    admin = make_member(role="admin")
    case_id = _case(services, admin)
    for mode in ("off", "suggest_only"):
        admin.rpc.mutation(
            "aiPlatform.recordAutonomyPolicy",
            {"task": "classify_denial", "mode": mode, "maxAmountAtStake": "10.00", "reason": f"mode {mode}"},
        ).data
    queued = _execute(admin.rpc, "classify_denial", case_id)
    assert (queued["decision"], queued["policyVersion"]) == ("queued", 2)

    same = admin.rpc.query("agentWorkbench.replay", {"executionId": queued["id"]}).data
    assert same["differences"]["any"] is False and same["replayed"]["decision"] == "queued"
    replayed = admin.rpc.query("agentWorkbench.replay", {"executionId": queued["id"], "policyVersion": 1}).data
    assert (replayed["original"]["decision"], replayed["replayed"]["decision"]) == ("queued", "refused")
    assert replayed["replayed"]["reasons"] == ["policy_off"] and replayed["replayed"]["policyVersion"] == 1
    d = replayed["differences"]
    assert d["decisionChanged"] and d["policyVersionChanged"] and not d["labelChanged"]
    assert d["output"] == [{"path": "", "before": queued["output"], "after": None}]
    # nothing stored or applied
    assert len(admin.rpc.query("aiPlatform.listExecutions", {}).data["items"]) == 1
    assert _category(services, case_id) is None
    missing = admin.rpc.query("agentWorkbench.replay", {"executionId": queued["id"], "policyVersion": 9})
    assert missing.code == "NOT_FOUND"


def test_replay_with_another_knowledge_version_shows_the_output_difference(services, rpc, make_member):
    admin = make_member(role="admin")
    manager = add_colleague(services, rpc, admin, role="manager")
    case_id = _case(services, admin, denial_category="authorization")
    v1 = admin.rpc.mutation(
        "knowledgeControl.publish", {"kind": "appeal_template", "key": "authorization", "content": "ONE $claim_key"}
    ).data
    manager.rpc.mutation("knowledgeControl.publish", {"approveVersionId": v1["id"], "reason": "fine"}).data
    drafted = _execute(admin.rpc, "draft_appeal_letter", case_id)
    assert drafted["output"]["text"].startswith("ONE ")
    v2 = admin.rpc.mutation(
        "knowledgeControl.publish", {"kind": "appeal_template", "key": "authorization", "content": "TWO $claim_key"}
    ).data  # pending: a replay may try it before approval
    r = admin.rpc.query("agentWorkbench.replay", {"executionId": drafted["id"], "knowledgeVersionIds": [v2["id"]]}).data
    assert r["replayed"]["output"]["text"].startswith("TWO ")
    assert [k["id"] for k in r["replayed"]["knowledgeVersions"]] == [v2["id"]]
    assert [k["id"] for k in r["original"]["knowledgeVersions"]] == [v1["id"]]
    paths = {c["path"] for c in r["differences"]["output"]}
    assert {"text", "templateVersion", "knowledge"} <= paths and r["differences"]["decisionChanged"] is False
    # a kind the task does not read is refused with the field named
    policy = admin.rpc.mutation(
        "knowledgeControl.publish", {"kind": "carc_guidance", "key": "197", "content": "attach the record"}
    ).data
    wrong = admin.rpc.query(
        "agentWorkbench.replay", {"executionId": drafted["id"], "knowledgeVersionIds": [policy["id"]]}
    )
    assert wrong.code == "BAD_REQUEST" and "knowledgeVersionIds" in wrong.error["message"]


def test_other_tenant_roles_and_bad_input(services, rpc, make_member):
    admin = make_member(role="admin")
    queued = _execute(admin.rpc, "classify_denial", _case(services, admin))
    stranger = make_member(role="admin")
    for name in ("agentWorkbench.accept", "agentWorkbench.reject"):
        assert stranger.rpc.mutation(name, {"executionId": queued["id"], "reason": "not mine"}).code == "NOT_FOUND"
    assert stranger.rpc.query("agentWorkbench.replay", {"executionId": queued["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("agentWorkbench.queue", {}).data["items"] == []
    own_knowledge = stranger.rpc.mutation(
        "knowledgeControl.publish", {"kind": "carc_guidance", "key": "197", "content": "theirs"}
    ).data
    foreign = admin.rpc.query(
        "agentWorkbench.replay", {"executionId": queued["id"], "knowledgeVersionIds": [own_knowledge["id"]]}
    )
    assert foreign.code == "NOT_FOUND"
    for role in ("analyst", "auditor"):
        member = add_colleague(services, rpc, admin, role=role)
        for name in ("agentWorkbench.accept", "agentWorkbench.reject"):
            assert member.rpc.mutation(name, {"executionId": queued["id"], "reason": "try it"}).code == "FORBIDDEN"
        assert len(member.rpc.query("agentWorkbench.queue", {}).data["items"]) == 1
    no_reason = admin.rpc.mutation("agentWorkbench.accept", {"executionId": queued["id"]})
    assert no_reason.code == "BAD_REQUEST" and "reason" in [i["path"] for i in no_reason.error["data"]["issues"]]
    bad_id = admin.rpc.mutation("agentWorkbench.reject", {"executionId": 0, "reason": "fine reason"})
    assert bad_id.code == "BAD_REQUEST" and "executionId" in [i["path"] for i in bad_id.error["data"]["issues"]]
    bad_version = admin.rpc.query("agentWorkbench.replay", {"executionId": queued["id"], "policyVersion": 0})
    assert bad_version.code == "BAD_REQUEST" and "policyVersion" in [
        i["path"] for i in bad_version.error["data"]["issues"]
    ]
    # a specialist may review (the write permission)
    specialist = add_colleague(services, rpc, admin, role="specialist")
    done = specialist.rpc.mutation("agentWorkbench.reject", {"executionId": queued["id"], "reason": "not convinced"})
    assert done.data["reviewerUserId"] == specialist.user_id
