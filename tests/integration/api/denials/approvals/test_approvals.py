"""approvals.* over the wire, on SQLite and PostgreSQL: separation of duties (attacked), the
two-approver policy, expiry, reasons, tenancy."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.approval_team import expire, make_team, new_draft, request_approval
from tests.support.denial_case_rows import make_case


@pytest.fixture
def team(services, rpc, make_member):
    return make_team(services, rpc, make_member)


def _decide(member_rpc, approval_id, decision="approve", reason="checked against the EOB"):
    return member_rpc.mutation("approvals.decide", {"id": approval_id, "decision": decision, "reason": reason})


def test_the_author_cannot_approve_their_own_draft(team):
    """Attack: the owner (an admin, who holds "approve") writes a draft and approves it."""
    draft = new_draft(team.owner.rpc, team.case_id)
    approval = request_approval(team.owner.rpc, draft["id"])
    assert approval["state"] == "pending" and approval["subjectDigest"] == draft["currentDigest"]
    own = _decide(team.owner.rpc, approval["id"])
    assert own.code == "FORBIDDEN"
    assert "Separation of duties" in own.error["message"] and "someone else" in own.error["message"]
    assert team.owner.rpc.query("approvals.get", {"id": approval["id"]}).data["state"] == "pending"
    assert _decide(team.manager.rpc, approval["id"]).data["state"] == "approved"


def test_a_co_author_cannot_approve_a_draft_someone_else_requested(team):
    """Attack: the manager edits the author's draft, the author requests approval, the manager approves."""
    draft = new_draft(team.author.rpc, team.case_id)
    team.manager.rpc.mutation("drafts.update", {"id": draft["id"], "content": "Manager's rewrite\n"}).data
    approval = request_approval(team.author.rpc, draft["id"])
    attempt = _decide(team.manager.rpc, approval["id"])
    assert attempt.code == "FORBIDDEN" and "Separation of duties" in attempt.error["message"]
    approved = _decide(team.owner.rpc, approval["id"]).data
    assert (approved["state"], approved["valid"], approved["subjectVersion"]) == ("approved", True, 2)
    assert [d["approverUserId"] for d in approved["decisions"]] == [team.owner.user_id]
    assert team.author.rpc.query("drafts.get", {"id": draft["id"]}).data["state"] == "approved"


def test_deciding_needs_the_approve_permission(team):
    draft = new_draft(team.owner.rpc, team.case_id)
    approval = request_approval(team.owner.rpc, draft["id"])
    assert _decide(team.author.rpc, approval["id"]).code == "FORBIDDEN"  # a specialist


@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_reason_is_required_on_every_decision(team, reason):
    draft = new_draft(team.author.rpc, team.case_id)
    approval = request_approval(team.author.rpc, draft["id"])
    for decision in ("approve", "reject"):
        body = {"id": approval["id"], "decision": decision}
        if reason is not None:
            body["reason"] = reason
        result = team.manager.rpc.mutation("approvals.decide", body)
        assert result.code == "BAD_REQUEST" and "reason" in result.error["message"]
    assert team.author.rpc.query("approvals.get", {"id": approval["id"]}).data["decisions"] == []


def test_two_distinct_approvers_above_the_policy_threshold(services, rpc, make_member, team):
    assert team.owner.rpc.query("approvals.policy").data["isDefault"] is True
    assert team.manager.rpc.mutation("approvals.setPolicy", {"twoApproversAbove": "1000.00"}).code == "FORBIDDEN"
    policy = team.owner.rpc.mutation("approvals.setPolicy", {"twoApproversAbove": "1000.00", "expiresAfterHours": 48})
    assert policy.data["twoApproversAbove"] == "1000.00" and policy.data["isDefault"] is False
    draft = new_draft(team.author.rpc, team.case_id)  # the case has 1250.00 at stake
    approval = request_approval(team.author.rpc, draft["id"])
    assert (approval["requiredApprovals"], approval["amount"]) == (2, "1250.00")
    first = _decide(team.manager.rpc, approval["id"]).data
    assert (first["state"], first["approvalsCount"], first["valid"]) == ("pending", 1, False)
    twice = _decide(team.manager.rpc, approval["id"])
    assert twice.code == "FORBIDDEN" and "different second approver" in twice.error["message"]
    second = _decide(team.owner.rpc, approval["id"], reason="second look").data
    assert (second["state"], second["approvalsCount"], second["valid"]) == ("approved", 2, True)
    assert [d["reason"] for d in second["decisions"]] == ["checked against the EOB", "second look"]
    # at or below the threshold one approver is enough
    small = make_case_draft(services, team, amount="1000.00")
    one = request_approval(team.author.rpc, small)
    assert one["requiredApprovals"] == 1
    assert _decide(team.manager.rpc, one["id"]).data["state"] == "approved"


def make_case_draft(services, team, amount):
    case_id = make_case(services, team.owner.organization_id, team.owner.client_id, amount_at_stake=Decimal(amount))
    return new_draft(team.author.rpc, case_id)["id"]


def test_a_stricter_policy_applies_to_open_requests(team):
    draft = new_draft(team.author.rpc, team.case_id)
    approval = request_approval(team.author.rpc, draft["id"])
    assert approval["requiredApprovals"] == 1
    team.owner.rpc.mutation("approvals.setPolicy", {"twoApproversAbove": "100.00"}).data
    assert _decide(team.manager.rpc, approval["id"]).data["state"] == "pending"


def test_an_expired_approval_is_not_valid_and_cannot_be_decided(services, team):
    draft = new_draft(team.author.rpc, team.case_id)
    approval = request_approval(team.author.rpc, draft["id"])
    granted_draft = new_draft(team.author.rpc, team.case_id)
    granted = request_approval(team.author.rpc, granted_draft["id"])
    assert _decide(team.manager.rpc, granted["id"]).data["valid"] is True
    expire(services, approval["id"])
    expire(services, granted["id"])
    for ident in (approval["id"], granted["id"]):
        read = team.author.rpc.query("approvals.get", {"id": ident}).data
        assert (read["state"], read["valid"]) == ("expired", False)
    late = _decide(team.owner.rpc, approval["id"])
    assert late.code == "PRECONDITION_FAILED" and "'expired'" in late.error["message"]
    listed = {a["id"] for a in team.author.rpc.query("approvals.list", {"state": "expired"}).data["items"]}
    assert listed == {approval["id"], granted["id"]}
    assert team.author.rpc.query("approvals.list", {"state": "pending"}).data["items"] == []
    # requesting again writes the lapse back and opens a new approval
    again = request_approval(team.author.rpc, draft["id"])
    assert again["state"] == "pending" and again["id"] != approval["id"]


def test_only_the_requester_withdraws(team):
    draft = new_draft(team.author.rpc, team.case_id)
    approval = request_approval(team.author.rpc, draft["id"])
    other = team.manager.rpc.mutation("approvals.withdraw", {"id": approval["id"], "reason": "no"})
    assert other.code == "FORBIDDEN"
    done = team.author.rpc.mutation("approvals.withdraw", {"id": approval["id"], "reason": "rewriting"}).data
    assert (done["state"], done["stateReason"]) == ("withdrawn", "rewriting")
    again = team.author.rpc.mutation("approvals.withdraw", {"id": approval["id"], "reason": "again"})
    assert again.code == "PRECONDITION_FAILED" and "'withdrawn'" in again.error["message"]


def test_a_draft_already_in_approval_cannot_be_requested_again(team):
    draft = new_draft(team.author.rpc, team.case_id)
    request_approval(team.author.rpc, draft["id"])
    again = team.author.rpc.mutation("approvals.request", {"subjectType": "draft", "subjectId": draft["id"]})
    assert again.code == "PRECONDITION_FAILED" and "'in_approval'" in again.error["message"]
    action = team.author.rpc.mutation("approvals.request", {"subjectType": "action", "subjectId": 1})
    assert action.code == "BAD_REQUEST"


def test_other_organizations_cannot_see_or_decide(team, make_member):
    draft = new_draft(team.author.rpc, team.case_id)
    approval = request_approval(team.author.rpc, draft["id"])
    intruder = make_member()  # an admin elsewhere: holds "approve" in their own organization
    assert intruder.rpc.query("approvals.get", {"id": approval["id"]}).code == "NOT_FOUND"
    assert _decide(intruder.rpc, approval["id"]).code == "NOT_FOUND"
    assert intruder.rpc.mutation("approvals.withdraw", {"id": approval["id"], "reason": "x"}).code == "NOT_FOUND"
    assert intruder.rpc.mutation("approvals.request", {"subjectType": "draft", "subjectId": draft["id"]}).code == (
        "NOT_FOUND"
    )
    assert intruder.rpc.query("approvals.list", {}).data["items"] == []
    crossing = intruder.rpc.as_(intruder.token, team.owner.client_id)
    assert _decide(crossing, approval["id"]).code in ("FORBIDDEN", "NOT_FOUND")
    assert team.author.rpc.query("approvals.get", {"id": approval["id"]}).data["state"] == "pending"
