"""An approved action carries only its own case's payload (issue 23, finding 4), over the wire on
SQLite and PostgreSQL.

The attack as reported: a $1 case carried a $50,000 case's appeal packet, needed one approver
instead of two, and the big packet was submitted. Here it is refused at request (and at run, for an
action stored before the fix, and where the packet moves), the approvers are counted from the
payload's case, and whoever wrote or assembled the payload never approves it. Finding 11: a
payloadRef whose id is beyond 64 bits is BAD_REQUEST naming the field, not a 500.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import func, select

from api.core.errors import PreconditionFailed
from api.denials.appeal_assembly import service as assembly
from api.denials.appeal_assembly.models import AppealPacket
from api.denials.approvals.models import ApprovalRequest
from api.denials.approved_actions.models import ActionExecution, ApprovedAction
from api.denials.cases.models import DenialCase
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.approval_team import LETTER, make_team, new_draft
from tests.support.denial_case_rows import add_colleague, make_case

SMALL, BIG, POLICY = Decimal("1.00"), Decimal("50000.00"), "1000.00"
PAYER = "NORTHWIND HEALTH PLAN"
CORRECTION = "CLM*4471*50000.00***11:B:7\nSV1*HC:99223*50000.00*UN*1\n"


@pytest.fixture
def team(services, rpc, make_member):
    """Owner (admin), author (specialist, never approves), manager (approves); a $50,000 case (the
    team's) and a $1 case; two approvers above $1,000."""
    team = make_team(services, rpc, make_member, amount=str(BIG))
    team.owner.rpc.mutation("approvals.setPolicy", {"twoApproversAbove": POLICY}).data
    return team


@pytest.fixture
def small_case(services, team):
    return make_case(services, team.owner.organization_id, team.owner.client_id, amount_at_stake=SMALL)


def _claim_key(services, case_id):
    with services.database.transaction() as db:
        return db.get(DenialCase, case_id).claim_key


def _packet(member_rpc, case_id, **extra):
    return member_rpc.mutation("appealAssembly.create", {"caseId": case_id, **extra}).data


def _request(member_rpc, case_id, kind, payload_ref):
    return member_rpc.mutation("approvedActions.request", {"caseId": case_id, "kind": kind, "payloadRef": payload_ref})


def _decide(member_rpc, action_id, decision="approve"):
    return member_rpc.mutation(
        "approvedActions.decide", {"id": action_id, "decision": decision, "reason": "checked the packet"}
    )


def _execute(member_rpc, action_id):
    return member_rpc.mutation("approvedActions.executeSandbox", {"id": action_id})


def _count(services, model, **where):
    with services.database.transaction() as db:
        stmt = select(func.count()).select_from(model)
        for name, value in where.items():
            stmt = stmt.where(getattr(model, name) == value)
        return db.scalar(stmt)


def _state(services, model, ident):
    with services.database.transaction() as db:
        return db.get(model, ident).state


def _assert_names_both_without_phi(message, payload_ref, payload_case, action_case, claim_key):
    assert f"payloadRef '{payload_ref}'" in message and "caseId" in message, message
    assert f"case {payload_case}," in message and f"not of case {action_case}" in message, message
    assert claim_key not in message and PAYER not in message and "CLM" not in message


def test_a_one_dollar_case_cannot_carry_a_fifty_thousand_dollar_packet(services, team, small_case):
    """The reported attack: the $50,000 packet on the $1 case's action (one approver) is refused and
    nothing is recorded; the packet can still be submitted properly, under its own case's policy."""
    packet = _packet(team.author.rpc, team.case_id)
    attack = _request(team.author.rpc, small_case, "submit_appeal_packet", str(packet["id"]))
    assert attack.code == "BAD_REQUEST", attack.body
    message = attack.error["message"]
    assert f"appeal packet {packet['id']}" in message
    _assert_names_both_without_phi(message, packet["id"], team.case_id, small_case, _claim_key(services, team.case_id))
    assert _count(services, ApprovedAction, case_id=small_case) == 0
    assert _count(services, ApprovalRequest, case_id=small_case) == 0
    assert team.author.rpc.query("approvedActions.list", {}).data["items"] == []
    assert _state(services, AppealPacket, packet["id"]) == "assembled"
    assert _state(services, DenialCase, small_case) == "open"


@pytest.mark.parametrize(
    ("kind", "draft_kind", "content"),
    [("send_corrected_claim", "corrected_claim", CORRECTION), ("portal_message", "appeal_letter", LETTER)],
    ids=["corrected_claim", "appeal_letter"],
)
def test_a_draft_of_the_big_case_cannot_ride_on_the_small_case(services, team, small_case, kind, draft_kind, content):
    draft = new_draft(team.author.rpc, team.case_id, kind=draft_kind, content=content)
    attack = _request(team.author.rpc, small_case, kind, f"draft:{draft['id']}")
    assert attack.code == "BAD_REQUEST", attack.body
    message = attack.error["message"]
    assert f"{draft_kind} draft {draft['id']}" in message
    _assert_names_both_without_phi(
        message, f"draft:{draft['id']}", team.case_id, small_case, _claim_key(services, team.case_id)
    )
    assert "Jane" not in message and _count(services, ApprovedAction, case_id=small_case) == 0
    # the same draft on its own case is an ordinary request, with the big case's two approvers
    own = _request(team.author.rpc, team.case_id, kind, f"draft:{draft['id']}").data
    assert (own["amount"], own["approval"]["requiredApprovals"]) == ("50000.00", 2)


def test_the_number_of_approvers_comes_from_the_payloads_case_and_the_packet_is_submitted(services, team, small_case):
    """Legitimate flows: the big packet on its own case needs two approvers and is submitted by the
    action; the small case's own packet needs one."""
    big = _packet(team.author.rpc, team.case_id)
    action = _request(team.author.rpc, team.case_id, "submit_appeal_packet", str(big["id"])).data
    assert (action["caseId"], action["amount"]) == (team.case_id, "50000.00")
    assert (action["approval"]["amount"], action["approval"]["requiredApprovals"]) == ("50000.00", 2)
    assert _decide(team.manager.rpc, action["id"]).data["state"] == "pending_approval"
    assert _execute(team.author.rpc, action["id"]).code == "PRECONDITION_FAILED"
    assert _decide(team.owner.rpc, action["id"]).data["state"] == "approved"
    done = _execute(team.author.rpc, action["id"]).data
    assert done["state"] == "executed" and done["execution"]["request"]["caseId"] == team.case_id
    packet = team.author.rpc.query("appealAssembly.get", {"id": big["id"]}).data
    assert (packet["state"], packet["submittedViaActionId"]) == ("submitted", action["id"])
    assert packet["trackingNumber"] == done["execution"]["trackingNumber"]
    assert _state(services, DenialCase, team.case_id) == "awaiting_payer"

    small = _packet(team.author.rpc, small_case)
    one = _request(team.author.rpc, small_case, "submit_appeal_packet", str(small["id"])).data
    assert (one["amount"], one["approval"]["requiredApprovals"]) == ("1.00", 1)
    assert _decide(team.manager.rpc, one["id"]).data["state"] == "approved"


def test_a_case_whose_amount_grew_after_the_request_needs_the_approvers_of_its_amount_now(services, team, small_case):
    small = _packet(team.author.rpc, small_case)
    action = _request(team.author.rpc, small_case, "submit_appeal_packet", str(small["id"])).data
    assert action["approval"]["requiredApprovals"] == 1
    with services.database.transaction() as db:  # e.g. a later 835 took back far more on the claim
        db.get(DenialCase, small_case).amount_at_stake = BIG
    assert _decide(team.manager.rpc, action["id"]).data["state"] == "pending_approval"
    read = team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data
    assert (read["approval"]["requiredApprovals"], read["approval"]["approvalsCount"]) == (2, 1)
    assert _decide(team.owner.rpc, action["id"]).data["state"] == "approved"


def test_whoever_wrote_or_assembled_the_payload_cannot_approve_it(services, rpc, team):
    """The owner writes the letter draft, the manager assembles the packet from it, the specialist
    requests the submission: neither the owner nor the manager may decide (both hold "approve"), by
    either door; two other managers do."""
    letter = new_draft(team.owner.rpc, team.case_id, kind="appeal_letter", content=LETTER)
    packet = _packet(team.manager.rpc, team.case_id, letterDraftId=letter["id"])
    action = _request(team.author.rpc, team.case_id, "submit_appeal_packet", str(packet["id"])).data
    by_writer = _decide(team.owner.rpc, action["id"])
    assert by_writer.code == "FORBIDDEN", by_writer.body
    assert by_writer.error["message"] == (
        f"Separation of duties: you wrote a version of draft {letter['id']}, the letter of appeal packet "
        f"{packet['id']}, which this action carries, so someone else must decide it"
    )
    by_assembler = _decide(team.manager.rpc, action["id"], "reject")
    assert by_assembler.code == "FORBIDDEN"
    assert f"you assembled appeal packet {packet['id']}" in by_assembler.error["message"]
    for member in (team.owner, team.manager):
        sideways = member.rpc.mutation(
            "approvals.decide", {"id": action["approvalId"], "decision": "approve", "reason": "mine"}
        )
        assert sideways.code == "FORBIDDEN" and "Separation of duties" in sideways.error["message"]
    first, second = (
        add_colleague(services, rpc, team.owner, "manager"),
        add_colleague(services, rpc, team.owner, "manager"),
    )
    assert _decide(first.rpc, action["id"]).data["state"] == "pending_approval"  # $50,000: two approvers
    assert _decide(second.rpc, action["id"]).data["state"] == "approved"
    assert _execute(team.author.rpc, action["id"]).data["state"] == "executed"
    assert _state(services, AppealPacket, packet["id"]) == "submitted"


def test_every_writer_of_a_draft_payload_is_conflicted(services, team, small_case):
    draft = new_draft(team.author.rpc, small_case, kind="corrected_claim", content=CORRECTION)
    team.manager.rpc.mutation("drafts.update", {"id": draft["id"], "content": CORRECTION + "NTE*ADD*fix\n"}).data
    action = _request(team.author.rpc, small_case, "send_corrected_claim", f"draft:{draft['id']}").data
    refused = _decide(team.manager.rpc, action["id"])
    assert refused.code == "FORBIDDEN"
    assert f"you wrote a version of draft {draft['id']}" in refused.error["message"]
    assert _decide(team.owner.rpc, action["id"]).data["state"] == "approved"
    assert _execute(team.author.rpc, action["id"]).data["state"] == "executed"


def _approved_then_moved_to(services, team, small_case):
    """An approved submission of the big packet whose stored case is then the $1 case: the row the
    attack left before this fix (the action and its approval on the small case)."""
    packet = _packet(team.author.rpc, team.case_id)
    action = _request(team.author.rpc, team.case_id, "submit_appeal_packet", str(packet["id"])).data
    _decide(team.manager.rpc, action["id"]).data
    _decide(team.owner.rpc, action["id"]).data
    with services.database.transaction() as db:
        db.get(ApprovedAction, action["id"]).case_id = small_case
        db.get(ApprovalRequest, action["approvalId"]).case_id = small_case
    return packet, action


def test_a_stored_action_carrying_another_cases_packet_never_runs(services, team, small_case):
    packet, action = _approved_then_moved_to(services, team, small_case)
    refused = _execute(team.author.rpc, action["id"])
    assert refused.code == "PRECONDITION_FAILED", refused.body
    _assert_names_both_without_phi(
        refused.error["message"], packet["id"], team.case_id, small_case, _claim_key(services, team.case_id)
    )
    read = team.author.rpc.query("approvedActions.get", {"id": action["id"]}).data
    assert (read["state"], read["stateReason"]) == ("void", f"the payload belongs to case {team.case_id}")
    assert read["approval"]["state"] == "void" and read["execution"] is None
    assert _count(services, ActionExecution, action_id=action["id"]) == 0
    assert _state(services, AppealPacket, packet["id"]) == "assembled"
    assert _state(services, DenialCase, team.case_id) == "in_appeal"


def test_the_packet_moves_only_for_an_action_of_its_own_case(services, team, small_case):
    """Where the packet is submitted (the action_executed listener), the case is checked again: an
    executed action of another case raises, so the execution's transaction rolls back."""
    packet, action = _approved_then_moved_to(services, team, small_case)
    with services.database.transaction() as db:
        set_scope(db, TenantScope(team.owner.organization_id, team.owner.client_id))
        db.get(ApprovedAction, action["id"]).state = "executed"
        db.flush()
        with pytest.raises(PreconditionFailed, match=f"is appeal packet {packet['id']} of case {team.case_id}, not"):
            assembly.submitted_by_action(db, action["id"])
        db.rollback()  # as the execution's transaction would be
    assert _state(services, AppealPacket, packet["id"]) == "assembled"


OUT_OF_RANGE = [str(2**64), str(2**63), "-1", "0", "9" * 200]


@pytest.mark.parametrize("ref", OUT_OF_RANGE + [f"draft:{n}" for n in OUT_OF_RANGE[:-1]])
def test_a_payload_ref_id_beyond_64_bits_is_bad_request_naming_the_field(team, ref):
    """Finding 11: 2^64 answered 500 (integer overflow in the database); every id in payloadRef is
    bounded like DbId (1..2^63-1)."""
    for kind in ("submit_appeal_packet", "portal_message"):
        answer = _request(team.author.rpc, team.case_id, kind, ref)
        assert answer.code == "BAD_REQUEST", (ref, kind, answer.body)
        assert "payloadRef" in answer.error["message"], answer.error["message"]
    assert team.author.rpc.query("approvedActions.list", {}).data["items"] == []


@pytest.mark.parametrize("ref", [2**64, 2**63, -1])
def test_a_payload_ref_sent_as_a_number_is_bad_request_naming_the_field(team, ref):
    answer = _request(team.author.rpc, team.case_id, "submit_appeal_packet", ref)
    assert answer.code == "BAD_REQUEST" and "payloadRef" in answer.error["message"], answer.body


def test_the_largest_id_is_simply_not_found(team):
    for ref in (str(2**63 - 1), f"draft:{2**63 - 1}", "007"):
        answer = _request(team.author.rpc, team.case_id, "submit_appeal_packet", ref)
        assert answer.code == "NOT_FOUND", (ref, answer.body)
