"""A payer rule changes only through approval (separation of duties), on SQLite and PostgreSQL.

MA-1 (tests/fixtures/x12/hand/deadlines_medicare_advantage.835): a Medicare Advantage denial noticed
2026-03-02; its platform reconsideration (42 CFR 422.582(b), 65 days) is due 2026-05-06 (Mar 29 + Apr 30
= 59, +6). A client rule of 60 days from 2026-01-01 gives 2026-03-02 + 60 = 2026-05-01.
"""

from __future__ import annotations

import pytest

from api.denials.deadlines.service import RESCHEDULE_JOB_KIND
from tests.integration.api.denials.conftest import by_claim, post
from tests.support.jobs import queued, run_queued
from tests.support.tenancy import join

RULE = {
    "payerType": "medicare_advantage",
    "payerId": "MAP01",
    "level": "reconsideration",
    "days": 60,
    "effectiveFrom": "2026-01-01",
    "source": "Provider agreement section 4.2",
}


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _colleague(member, services, role: str = "manager", invited_by: int | None = None):
    if invited_by is None:
        user_id, _e, _p, token = join(services, member.rpc, member.organization_id, role)
        return user_id, member.rpc.as_(token, member.client_id)
    from tests.conftest import make_user, sign_in
    from tests.support.tenancy import invite

    user_id, email, password = make_user(services)
    invitation = invite(services, member.organization_id, email, role, invited_by=invited_by)
    session = sign_in(member.rpc, email, password)
    member.rpc.as_(session).mutation("organizations.acceptInvite", {"token": invitation}).data
    return user_id, member.rpc.as_(session, member.client_id)


def _reconsideration_due(rpc, case_id: int) -> str:
    out = rpc.query("deadlines.forCase", {"caseId": case_id, "asOf": "2026-03-10"}).data
    return next(d["dueOn"] for d in out["items"] if d["level"] == "reconsideration")


def _decide(rpc, change_id: int, decision: str = "approve", reason: str = "matches the signed contract"):
    return rpc.mutation("payerRules.decide", {"id": change_id, "decision": decision, "reason": reason})


def test_the_proposer_cannot_approve_their_own_change_and_nothing_applies(member, services):
    proposed = member.rpc.mutation("payerRules.upsert", RULE).data
    change = proposed["change"]
    assert (change["state"], change["kind"], change["proposedBy"]) == ("proposed", "limit", member.user_id)
    assert (proposed["rescheduled"], proposed["rule"]["id"], proposed["rule"]["days"]) == (0, None, 60)
    assert proposed["rule"]["reference"] == f"payer_rule_changes/{change['id']}"
    # the attack: the proposer approves their own change
    own = _decide(member.rpc, change["id"])
    assert own.code == "FORBIDDEN" and "another manager or admin" in own.error["message"]
    assert _decide(member.rpc, change["id"], "reject").code == "FORBIDDEN"
    assert member.rpc.query("payerRules.list", {}).data["items"] == []
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == []
    listed = member.rpc.query("payerRules.changes", {"state": "proposed"}).data["items"]
    assert [c["id"] for c in listed] == [change["id"]]


def test_a_manager_the_proposer_invited_cannot_approve(member, services):
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    _uid, invited = _colleague(member, services, invited_by=member.user_id)
    refused = _decide(invited, change["id"])
    assert refused.code == "FORBIDDEN" and "invited" in refused.error["message"]
    assert member.rpc.query("payerRules.list", {}).data["items"] == []


def test_an_approved_change_applies_and_reschedules_as_a_rule_write_did(member, services):
    post(member.rpc, "deadlines_medicare_advantage.835")
    case = by_claim(member.rpc)["MA-1"]
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    # proposed only: the deadline has not moved and no job was queued
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == []
    approver_id, approver = _colleague(member, services)
    out = _decide(approver, change["id"]).data
    assert (out["change"]["state"], out["change"]["decidedBy"], out["change"]["reason"]) == (
        "approved",
        approver_id,
        "matches the signed contract",
    )
    assert (out["created"], out["rescheduled"], out["rule"]["days"], out["rule"]["origin"]) == (True, 1, 60, "client")
    assert out["change"]["appliedRuleId"] == out["rule"]["id"]
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == [
        {"clientId": member.client_id, "payerIds": ["MAP01"]}
    ]
    assert _reconsideration_due(member.rpc, case["id"]) == "2026-05-06"  # until the job runs
    assert run_queued(services, RESCHEDULE_JOB_KIND, member.client_id) == 1
    assert _reconsideration_due(member.rpc, case["id"]) == "2026-05-01"
    # decided once: a second decision is refused naming the state
    again = _decide(approver, change["id"], "reject")
    assert again.code == "PRECONDITION_FAILED" and "approved" in again.error["message"]
    audit = member.rpc.query("audit.list", {"procedure": "payerRules.decide"}).data["items"]
    assert len(audit) == 1 and (audit[0]["targetType"], audit[0]["targetId"]) == (
        "payer_rule_change",
        str(change["id"]),
    )


def test_a_rejected_change_applies_nothing(member, services):
    post(member.rpc, "deadlines_medicare_advantage.835")
    case = by_claim(member.rpc)["MA-1"]
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    _uid, approver = _colleague(member, services)
    out = _decide(approver, change["id"], "reject", "the amendment is not signed yet").data
    assert (out["change"]["state"], out["rule"], out["created"], out["rescheduled"]) == ("rejected", None, False, 0)
    assert out["change"]["appliedRuleId"] is None
    assert member.rpc.query("payerRules.list", {}).data["items"] == []
    assert queued(services, RESCHEDULE_JOB_KIND, member.client_id) == []
    assert _reconsideration_due(member.rpc, case["id"]) == "2026-05-06"
    assert _decide(approver, change["id"]).code == "PRECONDITION_FAILED"
    states = [c["state"] for c in member.rpc.query("payerRules.changes", {"state": "rejected"}).data["items"]]
    assert states == ["rejected"]
    assert member.rpc.query("payerRules.changes", {"state": "proposed"}).data["items"] == []


def test_only_the_proposer_withdraws(member, services):
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    _uid, colleague = _colleague(member, services)
    assert colleague.mutation("payerRules.withdraw", {"id": change["id"]}).code == "FORBIDDEN"
    withdrawn = member.rpc.mutation("payerRules.withdraw", {"id": change["id"]}).data
    assert withdrawn["state"] == "withdrawn"
    assert _decide(colleague, change["id"]).code == "PRECONDITION_FAILED"
    assert member.rpc.mutation("payerRules.withdraw", {"id": change["id"]}).code == "PRECONDITION_FAILED"


def test_another_clients_change_is_not_found(member, make_member, services):
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    other = make_member(role="admin")
    assert _decide(other.rpc, change["id"]).code == "NOT_FOUND"
    assert other.rpc.mutation("payerRules.withdraw", {"id": change["id"]}).code == "NOT_FOUND"
    assert other.rpc.query("payerRules.changes", {}).data["items"] == []
    assert _decide(member.rpc, 10**15).code == "NOT_FOUND"


def test_deciding_needs_a_manager_and_bounded_input(member, services):
    change = member.rpc.mutation("payerRules.upsert", RULE).data["change"]
    _uid, specialist = _colleague(member, services, role="specialist")
    assert _decide(specialist, change["id"]).code == "FORBIDDEN"
    assert specialist.query("payerRules.changes", {}).status == 200  # reading is open to members
    _uid, approver = _colleague(member, services)
    assert _decide(approver, change["id"], reason="").code == "BAD_REQUEST"
    assert _decide(approver, change["id"], reason="x" * 1001).code == "BAD_REQUEST"
    assert _decide(approver, change["id"], decision="maybe").code == "BAD_REQUEST"
    assert _decide(approver, 0).code == "BAD_REQUEST"
    assert _decide(approver, 2**63).code == "BAD_REQUEST"
    assert approver.query("payerRules.changes", {"state": "pending"}).code == "BAD_REQUEST"
    assert approver.query("payerRules.changes", {"limit": 501}).code == "BAD_REQUEST"


def test_changes_are_paged_newest_first(member):
    ids = [member.rpc.mutation("payerRules.upsert", {**RULE, "days": d}).data["change"]["id"] for d in (30, 40, 50)]
    first = member.rpc.query("payerRules.changes", {"limit": 2}).data
    assert [c["id"] for c in first["items"]] == [ids[2], ids[1]]
    rest = member.rpc.query("payerRules.changes", {"limit": 2, "cursor": first["nextCursor"]}).data
    assert [c["id"] for c in rest["items"]] == [ids[0]] and rest["nextCursor"] is None
    assert [c["payload"]["days"] for c in first["items"]] == [50, 40]
