"""caseControl.* over the real wire: bulk assignment all or nothing with a per-id report, escalation,
holds that stop the lifecycle until released; every change is a CaseEvent."""

from __future__ import annotations

from tests.integration.api.denials.conftest import open_case


def test_bulk_assign_assigns_every_case_and_reports_each(member):
    a, b = open_case(member.rpc, "B-1"), open_case(member.rpc, "B-2")
    member.rpc.mutation("cases.assign", {"id": b["id"], "ownerUserId": member.user_id}).data
    done = member.rpc.mutation(
        "caseControl.bulkAssign", {"ids": [a["id"], b["id"]], "ownerUserId": member.user_id}
    ).data
    assert done["assigned"] == 1
    assert [(i["id"], i["status"], i["previousOwnerUserId"]) for i in done["items"]] == [
        (a["id"], "assigned", None),
        (b["id"], "unchanged", member.user_id),
    ]
    events = member.rpc.query("cases.get", {"id": a["id"]}).data["events"]
    assert events[-1]["kind"] == "assigned" and events[-1]["actorUserId"] == member.user_id


def test_bulk_assign_changes_nothing_when_one_case_cannot_be_assigned(member, make_member):
    a, b = open_case(member.rpc, "B-3"), open_case(member.rpc, "B-4")
    other = make_member(role="admin")
    foreign = open_case(other.rpc, "B-5")
    refused = member.rpc.mutation(
        "caseControl.bulkAssign", {"ids": [a["id"], foreign["id"], b["id"]], "ownerUserId": member.user_id}
    )
    assert refused.code == "NOT_FOUND"
    assert "No case was assigned: 1 of 3" in refused.error["message"]
    items = refused.error["data"].get("items") or refused.body["error"].get("data", {}).get("items")
    assert items == [
        {"id": a["id"], "status": "ok"},
        {"id": foreign["id"], "status": "not_found"},
        {"id": b["id"], "status": "ok"},
    ]
    for case in (a, b):
        assert member.rpc.query("cases.get", {"id": case["id"]}).data["case"]["ownerUserId"] is None
    # A closed case refuses the whole call too.
    for to in ("written_off", "closed"):
        member.rpc.mutation("cases.transition", {"id": b["id"], "to": to}).data
    closed = member.rpc.mutation("caseControl.bulkAssign", {"ids": [a["id"], b["id"]], "ownerUserId": member.user_id})
    assert closed.code == "PRECONDITION_FAILED"
    assert member.rpc.query("cases.get", {"id": a["id"]}).data["case"]["ownerUserId"] is None
    dupes = member.rpc.mutation("caseControl.bulkAssign", {"ids": [a["id"], a["id"]], "ownerUserId": member.user_id})
    assert dupes.code == "BAD_REQUEST"
    assert (
        member.rpc.mutation("caseControl.bulkAssign", {"ids": [], "ownerUserId": member.user_id}).code == "BAD_REQUEST"
    )


def test_escalate_hold_and_release_record_their_reasons(member):
    case = open_case(member.rpc)
    escalated = member.rpc.mutation("caseControl.escalate", {"id": case["id"], "reason": "large balance"}).data
    assert escalated["escalated"] is True
    again = member.rpc.mutation("caseControl.escalate", {"id": case["id"], "reason": "large balance"})
    assert again.code == "PRECONDITION_FAILED"
    held = member.rpc.mutation("caseControl.hold", {"id": case["id"], "reason": "waiting for records"}).data
    assert (held["onHold"], held["holdReason"]) == (True, "waiting for records")
    blocked = member.rpc.mutation("cases.transition", {"id": case["id"], "to": "triaged"})
    assert blocked.code == "PRECONDITION_FAILED" and "on hold" in blocked.error["message"]
    assert member.rpc.mutation("caseControl.hold", {"id": case["id"], "reason": "again"}).code == "PRECONDITION_FAILED"
    released = member.rpc.mutation("caseControl.release", {"id": case["id"], "reason": "records arrived"}).data
    assert (released["onHold"], released["holdReason"]) == (False, None)
    assert (
        member.rpc.mutation("caseControl.release", {"id": case["id"], "reason": "twice"}).code == "PRECONDITION_FAILED"
    )
    assert member.rpc.mutation("cases.transition", {"id": case["id"], "to": "triaged"}).data["state"] == "triaged"
    events = member.rpc.query("cases.get", {"id": case["id"]}).data["events"]
    assert [(e["kind"], e["reason"]) for e in events[1:]] == [
        ("escalated", "large balance"),
        ("held", "waiting for records"),
        ("released", "records arrived"),
        ("transition", None),
    ]
    assert member.rpc.mutation("caseControl.hold", {"id": case["id"], "reason": "x"}).code == "BAD_REQUEST"
    assert member.rpc.mutation("caseControl.escalate", {"id": 999_999_999, "reason": "why not"}).code == "NOT_FOUND"
