"""cases.* over the real wire: opening by hand (idempotent), the worklist filters and pagination,
assignment to members only, lifecycle moves with their events, notes kept out of lists and audits."""

from __future__ import annotations

import uuid

from api.platform.audit.digest import digest
from tests.integration.api.denials.conftest import cases, join_as, open_case, post


def test_opening_by_hand_classifies_from_the_carc_and_is_idempotent(member):
    first = member.rpc.mutation(
        "cases.open",
        {
            "claimKey": "MAN-1",
            "payer": "Hand Manual Payer",
            "amountAtStake": "150.00",
            "carc": "197",
            "deniedOn": "2026-05-01",
        },
    ).data
    assert first["created"] is True
    case = first["case"]
    assert (case["origin"], case["eventKind"], case["state"], case["amountAtStake"]) == (
        "manual",
        "denial",
        "open",
        "150.00",
    )
    assert (case["denialCategory"], case["groupCode"], case["carc"], case["hardOrSoft"]) == (
        "authorization",
        "CO",
        "197",
        "hard",
    )
    again = member.rpc.mutation(
        "cases.open",
        {
            "claimKey": "MAN-1",
            "payer": "HAND MANUAL PAYER",
            "amountAtStake": "150.00",
            "carc": "197",
            "deniedOn": "2026-05-01",
        },
    ).data
    assert again["created"] is False and again["case"]["id"] == case["id"]
    other_amount = open_case(member.rpc, "MAN-1", "20.00")
    assert other_amount["id"] != case["id"]


def test_opening_by_hand_refuses_bad_amounts_and_unknown_categories(member):
    for amount in ("0", "-5.00", "1.234", "abc"):
        refused = member.rpc.mutation("cases.open", {"claimKey": "MAN-2", "payer": "P", "amountAtStake": amount})
        assert refused.code == "BAD_REQUEST", amount
    unknown = member.rpc.mutation(
        "cases.open", {"claimKey": "MAN-2", "payer": "P", "amountAtStake": "5.00", "denialCategory": "bogus"}
    )
    assert unknown.code == "BAD_REQUEST" and "denialCategory" in unknown.error["message"]


def test_the_paid_before_of_a_manual_case_comes_from_the_ledger(member):
    post(member.rpc, "cases_denial.835")  # CSD-1 paid 120.00 by HAND CASES PAYER
    case = member.rpc.mutation(
        "cases.open", {"claimKey": "CSD-1", "payer": "hand cases payer", "amountAtStake": "30.00", "reference": "LTR-9"}
    ).data["case"]
    assert case["paidBefore"] == "120.00"


def test_the_worklist_filters_and_paginates(member, make_member):
    a = open_case(member.rpc, "W-1", "50.00", carc="50")
    b = open_case(member.rpc, "W-2", "500.00", carc="197")
    c = open_case(member.rpc, "W-3", "5.00", carc="16")
    specialist = make_member(role="specialist")  # another organization: not assignable here
    assert member.rpc.mutation("cases.assign", {"id": b["id"], "ownerUserId": specialist.user_id}).code == "BAD_REQUEST"
    member.rpc.mutation("cases.assign", {"id": b["id"], "ownerUserId": member.user_id}).data
    member.rpc.mutation("caseControl.escalate", {"id": c["id"], "reason": "payer pattern"}).data
    member.rpc.mutation("cases.transition", {"id": a["id"], "to": "triaged"}).data

    def ids(**filters):
        return [x["id"] for x in cases(member.rpc, **filters)]

    assert ids() == [c["id"], b["id"], a["id"]], "newest first"
    assert ids(owner="me") == [b["id"]]
    assert ids(owner=str(member.user_id)) == [b["id"]]
    assert ids(owner="unassigned") == [c["id"], a["id"]]
    assert ids(states=["triaged"]) == [a["id"]]
    assert ids(states=["open", "triaged"]) == [c["id"], b["id"], a["id"]]
    assert ids(category="authorization") == [b["id"]]
    assert ids(carc="16") == [c["id"]]
    assert ids(minAmount="50.00") == [b["id"], a["id"]]
    assert ids(escalated=True) == [c["id"]]
    assert ids(onHold=True) == []
    assert ids(payer="hand manual payer") == [c["id"], b["id"], a["id"]]
    assert ids(dueBefore="2030-01-01") == [], "no appeal deadline set yet"
    first = member.rpc.query("cases.list", {"limit": 2}).data
    assert [x["id"] for x in first["items"]] == [c["id"], b["id"]] and first["nextCursor"]
    rest = member.rpc.query("cases.list", {"limit": 2, "cursor": first["nextCursor"]}).data
    assert [x["id"] for x in rest["items"]] == [a["id"]] and rest["nextCursor"] is None
    assert member.rpc.query("cases.list", {"owner": "someone"}).code == "BAD_REQUEST"
    assert member.rpc.query("cases.list", {"states": ["appealed"]}).code == "BAD_REQUEST"
    assert member.rpc.query("cases.list", {"cursor": "nonsense"}).code == "BAD_REQUEST"


def test_assignment_needs_a_member_who_may_work_cases(member, services):
    case = open_case(member.rpc)
    auditor_id, _ = join_as(member, services, "auditor")
    refused = member.rpc.mutation("cases.assign", {"id": case["id"], "ownerUserId": auditor_id})
    assert refused.code == "BAD_REQUEST" and "auditor" in refused.error["message"]
    assigned = member.rpc.mutation("cases.assign", {"id": case["id"], "ownerUserId": member.user_id}).data
    assert assigned["ownerUserId"] == member.user_id
    unassigned = member.rpc.mutation("cases.assign", {"id": case["id"], "ownerUserId": None}).data
    assert unassigned["ownerUserId"] is None
    events = member.rpc.query("cases.get", {"id": case["id"]}).data["events"]
    assert [(e["kind"], e["details"]) for e in events[1:]] == [
        ("assigned", {"from": None, "to": member.user_id}),
        ("unassigned", {"from": member.user_id, "to": None}),
    ]
    assert member.rpc.mutation("cases.assign", {"id": 999_999_999, "ownerUserId": member.user_id}).code == "NOT_FOUND"


def test_moves_record_events_write_offs_and_closing_and_reopening_needs_a_reason(member, services):
    case = open_case(member.rpc, amount="100.00")
    member.rpc.mutation("caseRecovery.recordRecovery", {"id": case["id"], "amount": "30.00", "source": "patient"}).data
    for to in ("triaged", "in_appeal", "awaiting_payer", "lost"):
        moved = member.rpc.mutation("cases.transition", {"id": case["id"], "to": to}).data
        assert moved["state"] == to
    assert moved["writtenOffAmount"] == "70.00", "100.00 at stake - 30.00 recovered"
    refused = member.rpc.mutation("cases.transition", {"id": case["id"], "to": "won"})
    assert refused.code == "PRECONDITION_FAILED" and "'lost'" in refused.error["message"]
    closed = member.rpc.mutation("cases.transition", {"id": case["id"], "to": "closed"}).data
    assert closed["closedAt"] is not None and closed["writtenOffAmount"] == "70.00"
    no_reason = member.rpc.mutation("cases.transition", {"id": case["id"], "to": "triaged"})
    assert no_reason.code == "BAD_REQUEST" and "reason" in no_reason.error["message"]
    reopened = member.rpc.mutation(
        "cases.transition", {"id": case["id"], "to": "triaged", "reason": "payer reopened the review"}
    ).data
    assert (reopened["state"], reopened["closedAt"], reopened["writtenOffAmount"]) == ("triaged", None, "0.00")
    events = member.rpc.query("cases.get", {"id": case["id"]}).data["events"]
    moves = [(e["fromState"], e["toState"], e["reason"], e["actorUserId"]) for e in events if e["kind"] == "transition"]
    assert moves == [
        ("open", "triaged", None, member.user_id),
        ("triaged", "in_appeal", None, member.user_id),
        ("in_appeal", "awaiting_payer", None, member.user_id),
        ("awaiting_payer", "lost", None, member.user_id),
        ("lost", "closed", None, member.user_id),
        ("closed", "triaged", "payer reopened the review", member.user_id),
    ]
    audit = member.rpc.query("audit.list", {"procedure": "cases.transition", "targetId": str(case["id"])}).data["items"]
    assert len(audit) == 6
    assert {a["afterDigest"] for a in audit} >= {digest({"state": "triaged"}, services.digest_key)}


def test_notes_show_in_get_but_never_in_lists_or_the_audit(member, services):
    case = open_case(member.rpc)
    body = f"Spoke to the payer about the patient {uuid.uuid4().hex}"
    note = member.rpc.mutation("cases.addNote", {"id": case["id"], "body": body}).data
    assert note["body"] == body and note["authorUserId"] == member.user_id
    detail = member.rpc.query("cases.get", {"id": case["id"]}).data
    assert [n["body"] for n in detail["notes"]] == [body]
    assert detail["events"][-1]["kind"] == "note_added" and body not in str(detail["events"])
    listed = member.rpc.query("cases.list", {}).data
    assert body not in str(listed)
    audit = member.rpc.query("audit.list", {"procedure": "cases.addNote"}).data["items"]
    assert len(audit) == 1 and audit[0]["afterDigest"] == digest({"note_id": note["id"]}, services.digest_key)
    assert member.rpc.mutation("cases.addNote", {"id": case["id"], "body": ""}).code == "BAD_REQUEST"


def test_a_read_only_member_can_read_but_not_change_cases(member, services):
    case = open_case(member.rpc)
    _, auditor = join_as(member, services, "auditor")
    assert auditor.query("cases.get", {"id": case["id"]}).data["case"]["id"] == case["id"]
    assert auditor.mutation("cases.transition", {"id": case["id"], "to": "triaged"}).code == "FORBIDDEN"
