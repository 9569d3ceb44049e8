"""approvedActions.* over the wire, on SQLite and PostgreSQL: separation of duties (attacked), the
two-approver policy, run once (also concurrently), a changed payload voids, expiry, the sandbox
target, the action_executed hook, tenancy and the audit."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from api.denials.approved_actions import sandbox
from api.denials.approved_actions.models import ActionExecution
from api.platform.audit.models import AuditEvent
from tests.support.approval_team import LETTER, expire, make_team, new_draft

CORRECTION = "CLM*4471*1250.00***11:B:7\nSV1*HC:99214:25*1250.00*UN*1\n"


@pytest.fixture
def team(services, rpc, make_member):
    return make_team(services, rpc, make_member)


def _request(member_rpc, case_id, draft_id, kind="send_corrected_claim"):
    return member_rpc.mutation(
        "approvedActions.request", {"caseId": case_id, "kind": kind, "payloadRef": f"draft:{draft_id}"}
    )


def _decide(member_rpc, action_id, decision="approve", reason="matches the corrected 837"):
    return member_rpc.mutation("approvedActions.decide", {"id": action_id, "decision": decision, "reason": reason})


def _execute(member_rpc, action_id, **extra):
    return member_rpc.mutation("approvedActions.executeSandbox", {"id": action_id, **extra})


@pytest.fixture
def approved(team):
    """An approved send_corrected_claim action on a corrected-claim draft written by the author."""
    draft = new_draft(team.author.rpc, team.case_id, kind="corrected_claim", content=CORRECTION)
    action = _request(team.author.rpc, team.case_id, draft["id"]).data
    assert _decide(team.manager.rpc, action["id"]).data["state"] == "approved"
    return draft, action


def _executions(services, action_id):
    with services.database.transaction() as db:
        return db.scalar(
            select(func.count()).select_from(ActionExecution).where(ActionExecution.action_id == action_id)
        )


def test_the_requester_cannot_approve_their_own_action(team):
    """Attack: the owner (an admin, who holds "approve") requests an action and approves it."""
    draft = new_draft(team.author.rpc, team.case_id, kind="corrected_claim", content=CORRECTION)
    action = _request(team.owner.rpc, team.case_id, draft["id"]).data
    assert (action["state"], action["payloadDigest"]) == ("pending_approval", draft["currentDigest"])
    assert action["approval"]["subjectType"] == "action" and action["amount"] == "1250.00"
    own = _decide(team.owner.rpc, action["id"])
    assert own.code == "FORBIDDEN" and "Separation of duties" in own.error["message"]
    assert team.owner.rpc.query("approvedActions.get", {"id": action["id"]}).data["state"] == "pending_approval"
    # and not through the approvals namespace either
    sideways = team.owner.rpc.mutation(
        "approvals.decide", {"id": action["approvalId"], "decision": "approve", "reason": "mine"}
    )
    assert sideways.code == "FORBIDDEN"
    assert _execute(team.owner.rpc, action["id"]).code == "PRECONDITION_FAILED"


def test_an_approved_action_runs_once_against_the_sandbox(services, team, approved):
    draft, action = approved
    done = _execute(team.author.rpc, action["id"]).data
    assert done["state"] == "executed" and done["executedByUserId"] == team.author.user_id
    execution = done["execution"]
    assert execution["outcome"] == "acknowledged" and execution["target"] == "sandbox-clearinghouse"
    assert execution["trackingNumber"] == sandbox.tracking_number("send_corrected_claim", draft["currentDigest"])
    assert execution["request"]["payloadDigest"] == draft["currentDigest"]
    assert "CLM" not in str(execution["request"]) and "CLM" not in str(execution["response"])
    assert done["approval"]["state"] == "used" and done["approval"]["valid"] is False
    again = _execute(team.author.rpc, action["id"])
    assert again.code == "PRECONDITION_FAILED" and "only once" in again.error["message"]
    assert _executions(services, action["id"]) == 1
    late = team.author.rpc.mutation("approvals.withdraw", {"id": action["approvalId"], "reason": "too late"})
    assert late.code == "PRECONDITION_FAILED" and "'used'" in late.error["message"]


def test_two_concurrent_executions_run_it_once(services, team, approved):
    _, action = approved
    barrier = threading.Barrier(2)
    results = []

    def run(member_rpc):
        barrier.wait()
        results.append(_execute(member_rpc, action["id"]))

    threads = [threading.Thread(target=run, args=(m.rpc,)) for m in (team.author, team.manager)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = sorted((r.code or "OK") for r in results)
    assert codes[0] == "OK" and codes[1] in ("PRECONDITION_FAILED", "TOO_MANY_REQUESTS", "CONFLICT"), codes
    assert _executions(services, action["id"]) == 1
    assert team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data["state"] == "executed"


def test_a_payload_changed_after_approval_voids_the_action(services, team, approved):
    draft, action = approved
    team.author.rpc.mutation("drafts.update", {"id": draft["id"], "content": CORRECTION + "NTE*ADD*late change\n"}).data
    refused = _execute(team.manager.rpc, action["id"])
    assert refused.code == "PRECONDITION_FAILED" and "changed after approval" in refused.error["message"]
    read = team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data
    assert (read["state"], read["stateReason"]) == ("void", "the payload changed after approval")
    assert read["approval"]["state"] == "void" and read["execution"] is None
    assert _executions(services, action["id"]) == 0
    assert _execute(team.manager.rpc, action["id"]).code == "PRECONDITION_FAILED"
    with services.database.transaction() as db:
        events = db.scalars(
            select(AuditEvent).where(
                AuditEvent.procedure == "approvedActions.executeSandbox", AuditEvent.target_id == str(action["id"])
            )
        ).all()
    assert len(events) == 1 and events[0].after_digest and events[0].actor_user_id == team.manager.user_id


def test_a_discarded_payload_voids_the_action(services, team, approved):
    draft, action = approved
    team.author.rpc.mutation("drafts.discard", {"id": draft["id"], "reason": "wrong claim"}).data
    refused = _execute(team.manager.rpc, action["id"])
    assert refused.code == "PRECONDITION_FAILED" and "changed after approval" in refused.error["message"]
    read = team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data
    assert (read["state"], read["stateReason"]) == ("void", "the payload is gone")


def test_an_expired_approval_does_not_run(services, team, approved):
    _, action = approved
    expire(services, action["approvalId"])
    assert team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data["state"] == "expired"
    refused = _execute(team.author.rpc, action["id"])
    assert refused.code == "PRECONDITION_FAILED" and "'expired'" in refused.error["message"]
    assert _executions(services, action["id"]) == 0


def test_a_pending_or_rejected_action_does_not_run(team):
    draft = new_draft(team.author.rpc, team.case_id, kind="note", content=LETTER)
    action = _request(team.author.rpc, team.case_id, draft["id"], kind="portal_message").data
    pending = _execute(team.author.rpc, action["id"])
    assert pending.code == "PRECONDITION_FAILED" and "'pending_approval'" in pending.error["message"]
    assert _decide(team.manager.rpc, action["id"], "reject", "wrong payer").data["state"] == "rejected"
    rejected = _execute(team.author.rpc, action["id"])
    assert rejected.code == "PRECONDITION_FAILED" and "'rejected'" in rejected.error["message"]
    assert _decide(team.manager.rpc, action["id"], "reject", "").code == "BAD_REQUEST"


def test_two_approvers_above_the_threshold(team):
    team.owner.rpc.mutation("approvals.setPolicy", {"twoApproversAbove": "500.00"}).data
    draft = new_draft(team.author.rpc, team.case_id, kind="corrected_claim", content=CORRECTION)
    action = _request(team.author.rpc, team.case_id, draft["id"]).data
    assert action["approval"]["requiredApprovals"] == 2
    assert _decide(team.manager.rpc, action["id"]).data["state"] == "pending_approval"
    assert _execute(team.author.rpc, action["id"]).code == "PRECONDITION_FAILED"
    assert _decide(team.manager.rpc, action["id"]).code == "FORBIDDEN"
    assert _decide(team.owner.rpc, action["id"]).data["state"] == "approved"
    assert _execute(team.author.rpc, action["id"]).data["state"] == "executed"


def test_the_reject_target_fails_the_action_once(services, team, approved):
    _, action = approved
    failed = _execute(team.author.rpc, action["id"], target="sandbox-reject").data
    assert failed["state"] == "failed" and failed["execution"]["outcome"] == "rejected"
    assert failed["execution"]["trackingNumber"] is None
    assert _execute(team.author.rpc, action["id"]).code == "PRECONDITION_FAILED"
    assert _executions(services, action["id"]) == 1


def test_payloads_of_another_kind_are_refused(team):
    draft = new_draft(team.author.rpc, team.case_id, kind="corrected_claim", content=CORRECTION)
    # a packet submission names an appeal packet: a draft reference is no packet of this client
    packet = _request(team.author.rpc, team.case_id, draft["id"], kind="submit_appeal_packet")
    assert packet.code == "NOT_FOUND"
    wrong = _request(team.author.rpc, team.case_id, draft["id"], kind="portal_message")
    assert wrong.code == "NOT_FOUND"
    bogus = team.author.rpc.mutation(
        "approvedActions.request", {"caseId": team.case_id, "kind": "portal_message", "payloadRef": "draft 1"}
    )
    assert bogus.code == "BAD_REQUEST" and "payloadRef" in bogus.error["message"]
    assert team.author.rpc.query("approvedActions.list", {}).data["items"] == []


def test_action_executed_listeners_run_in_the_transaction(services, team, approved):
    _, action = approved
    seen = []

    def listener(db, action_id):
        from api.denials.approved_actions.models import ApprovedAction

        seen.append((action_id, db.get(ApprovedAction, action_id).state))

    services.action_executed.subscribe(listener)
    try:
        _execute(team.author.rpc, action["id"]).data
    finally:
        services.action_executed.unsubscribe(listener)
    assert seen == [(action["id"], "executed")]


def test_other_organizations_cannot_see_decide_or_run(team, approved, make_member):
    draft, action = approved
    intruder = make_member()
    assert intruder.rpc.query("approvedActions.get", {"id": action["id"]}).code == "NOT_FOUND"
    assert _decide(intruder.rpc, action["id"]).code == "NOT_FOUND"
    assert _execute(intruder.rpc, action["id"]).code == "NOT_FOUND"
    assert _request(intruder.rpc, team.case_id, draft["id"]).code == "NOT_FOUND"
    assert intruder.rpc.query("approvedActions.list", {}).data["items"] == []
    own_case = intruder.rpc.mutation(
        "cases.open", {"claimKey": "X-1", "payer": "P", "amountAtStake": "10.00", "carc": "50"}
    ).data["case"]
    # someone else's draft as the payload of an action on one's own case
    assert _request(intruder.rpc, own_case["id"], draft["id"]).code == "NOT_FOUND"
    assert team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data["state"] == "approved"


def test_the_audit_gets_ids_digests_and_states(services, team, approved):
    _, action = approved
    _execute(team.author.rpc, action["id"]).data
    with services.database.transaction() as db:
        rows = db.scalars(
            select(AuditEvent).where(AuditEvent.organization_id == team.owner.organization_id).order_by(AuditEvent.seq)
        ).all()
    trail = [(r.procedure, r.target_type) for r in rows if r.procedure.startswith("approvedActions.")]
    assert trail == [
        ("approvedActions.request", "approved_action"),
        ("approvedActions.decide", "approved_action"),
        ("approvedActions.executeSandbox", "approved_action"),
    ]
    assert all(
        r.after_digest and r.target_id == str(action["id"]) for r in rows if r.procedure.startswith("approvedActions.")
    )
