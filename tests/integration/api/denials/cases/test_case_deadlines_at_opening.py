"""A case gets its payer class and its appeal deadlines when it opens, by a remittance or by hand, and
its new owner is notified when it is assigned.

tests/fixtures/x12/hand/cases_medicare_denial.835: Medicare Part B (CLP06=MB) paid 2026-03-02 (a Monday),
MCR-1 partially denied CO-50 80.00. By hand: the initial determination is presumed received 5 days
after the remittance date, 2026-03-07; redetermination is due 120 days after receipt, 2026-07-05, a
Sunday, so the deadline rolls to Monday 2026-07-06 (4 July 2026 is a Saturday, observed on Friday the
3rd; the 6th is no holiday).
"""

from __future__ import annotations

from tests.integration.api.denials.conftest import by_claim, join_as, open_case, post


def test_a_medicare_denial_opens_a_medicare_case_with_its_redetermination_deadline(member):
    post(member.rpc, "cases_medicare_denial.835")
    case = by_claim(member.rpc)["MCR-1"]
    assert (case["payerClass"], case["amountAtStake"], case["remittanceDate"]) == ("medicare", "80.00", "2026-03-02")
    deadlines = member.rpc.query("deadlines.forCase", {"caseId": case["id"], "asOf": "2026-03-10"}).data
    assert deadlines["payerClass"] == "medicare"
    redetermination = next(d for d in deadlines["items"] if d["level"] == "redetermination")
    # the basis is the notice (remittance) date; receipt is presumed 5 days later, on 2026-03-07
    assert (redetermination["basisDate"], redetermination["dueOn"]) == ("2026-03-02", "2026-07-06")
    assert deadlines["appealDueOn"] == "2026-07-06"
    assert member.rpc.query("cases.get", {"id": case["id"]}).data["case"]["appealDueOn"] == "2026-07-06"


def test_a_commercial_denial_gets_the_default_limits_flagged_as_defaults(member):
    post(member.rpc, "cases_denial.835")
    case = by_claim(member.rpc)["CSD-1"]
    assert case["payerClass"] == "commercial"  # CLP06 12 (PPO)
    items = member.rpc.query("deadlines.forCase", {"caseId": case["id"]}).data["items"]
    assert items and all(d["dueOn"] > "2026-03-02" for d in items)


def test_a_case_opened_by_hand_gets_deadlines_too(member):
    case = open_case(member.rpc, claim_key="MAN-DL-1", deniedOn="2026-03-02")
    items = member.rpc.query("deadlines.forCase", {"caseId": case["id"]}).data["items"]
    assert items, "a manual case is scheduled when it opens"
    assert case["id"] == items[0]["caseId"]


def test_assigning_a_case_notifies_the_new_owner_and_not_the_one_who_assigned(member, services):
    owner_id, owner_rpc = join_as(member, services, "specialist")
    first = open_case(member.rpc, claim_key="MAN-AS-1")
    second = open_case(member.rpc, claim_key="MAN-AS-2")
    member.rpc.mutation("cases.assign", {"id": first["id"], "ownerUserId": owner_id})
    member.rpc.mutation("caseControl.bulkAssign", {"ids": [second["id"]], "ownerUserId": owner_id})
    mine = owner_rpc.query("notifications.list", {}).data["items"]
    assert sorted((n["kind"], n["caseId"]) for n in mine) == [("assigned", first["id"]), ("assigned", second["id"])]
    assert all("MAN-AS" not in n["title"] for n in mine), "no claim number in a notification title"
    assert member.rpc.query("notifications.list", {}).data["items"] == []
