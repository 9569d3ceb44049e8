"""revenueOperations.throughput and .backlog over the wire, on SQLite and PostgreSQL.

The world, by hand: `cases_denial.835` (tests/fixtures/x12/hand/README.md) opens two cases, CSD-1 for 80.00
and CSD-2 for 100.00; a manual case MAN-1 for 300.00 is opened with cases.open. All three open unassigned.
CSD-1 goes to specialist A, CSD-2 to A and then to B (a reassignment); MAN-1 stays unassigned. A appeals
CSD-1 and the payer's win of 80.00 is recorded; B appeals CSD-2 and its loss is recorded. Everything happens
today, so in today's week (the client's calendar):
- throughput: A closed 1 (won 1, recovered 80.00, 0 days open), B closed 1 (lost 1, 0.00); team 2 closed,
  1 won, 1 lost, 80.00;
- backlog at the week's end: A 0 (moved in 2, moved out 1, closed 1), B 0 (moved in 1, closed 1),
  unassigned 1 (opened 3, moved out 2), total 1; the week before: nothing, starting total 0.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from tests.integration.api.denials.conftest import by_claim, open_case, post
from tests.support.tenancy import join


def _specialist(services, member) -> int:
    user_id, _email, _password, _token = join(services, member.rpc, member.organization_id, "specialist")
    return user_id


def _appeal(rpc, case_id: int, decision: str, amount: str) -> None:
    for state in ("triaged", "in_appeal"):
        rpc.mutation("cases.transition", {"id": case_id, "to": state}).data
    today = datetime.now(UTC).date().isoformat()
    body = {"caseId": case_id, "decision": decision, "decidedOn": today, "amountRecovered": amount}
    rpc.mutation("outcomes.record", body).data


def _world(services, make_member):
    member = make_member(role="admin")
    post(member.rpc, "cases_denial.835")
    open_case(member.rpc, "MAN-1", "300.00")
    cases = by_claim(member.rpc)
    a, b = _specialist(services, member), _specialist(services, member)
    assign = member.rpc.mutation
    assign("cases.assign", {"id": cases["CSD-1"]["id"], "ownerUserId": a}).data
    assign("cases.assign", {"id": cases["CSD-2"]["id"], "ownerUserId": a}).data
    assign("cases.assign", {"id": cases["CSD-2"]["id"], "ownerUserId": b}).data
    _appeal(member.rpc, cases["CSD-1"]["id"], "won", "80.00")
    _appeal(member.rpc, cases["CSD-2"]["id"], "lost", "0")
    return member, a, b


def test_throughput_and_backlog_by_specialist_and_week(services, make_member):
    member, a, b = _world(services, make_member)
    now = member.rpc.query("revenueOperations.throughput", {}).data
    assert len(now["weeks"]) == 12 and now["lastWeek"] == now["weeks"][-1]["week"]
    this_week = now["weeks"][-1]["weekStart"]
    start = date.fromisoformat(this_week) - timedelta(days=7)
    range_ = {"fromDate": start.isoformat(), "toDate": (start + timedelta(days=7)).isoformat()}

    answer = member.rpc.query("revenueOperations.throughput", range_).data
    items = {(i["userId"], i["weekStart"]): i for i in answer["items"]}
    assert set(items) == {(a, this_week), (b, this_week)}
    got = [
        (i["casesClosed"], i["outcomesWon"], i["outcomesLost"], Decimal(i["recoveredAmount"])) for i in answer["items"]
    ]
    assert sorted(got) == [(1, 0, 1, Decimal("0.00")), (1, 1, 0, Decimal("80.00"))]
    assert items[(a, this_week)]["medianDaysOpen"] == 0.0 and items[(a, this_week)]["displayName"]
    last, first = answer["weeks"][1], answer["weeks"][0]
    assert (last["casesClosed"], last["outcomesWon"], last["outcomesLost"], Decimal(last["recoveredAmount"])) == (
        2,
        1,
        1,
        Decimal("80.00"),
    )
    assert (first["casesClosed"], Decimal(first["recoveredAmount"]), first["medianDaysOpen"]) == (
        0,
        Decimal("0.00"),
        None,
    )

    backlog = member.rpc.query("revenueOperations.backlog", range_).data
    assert backlog["startingTotal"] == 0
    before, week = backlog["weeks"]
    assert (before["total"], before["specialists"], before["unassigned"]["openCases"]) == (0, [], 0)
    owners = {s["userId"]: s for s in week["specialists"]}
    flows = ("openCases", "opened", "reopened", "closed", "movedIn", "movedOut")
    assert [owners[a][k] for k in flows] == [0, 0, 0, 1, 2, 1]
    assert [owners[b][k] for k in flows] == [0, 0, 0, 1, 1, 0]
    assert [week["unassigned"][k] for k in flows] == [1, 3, 0, 0, 0, 2]
    assert week["total"] == 1 and week["week"].startswith(this_week[:4]) and "-W" in week["week"]


def test_another_client_sees_none_of_it(services, make_member):
    _world(services, make_member)
    other = make_member(role="admin")
    answer = other.rpc.query("revenueOperations.throughput", {}).data
    assert answer["items"] == [] and all(w["casesClosed"] == 0 for w in answer["weeks"])
    backlog = other.rpc.query("revenueOperations.backlog", {}).data
    assert all(w["total"] == 0 and w["specialists"] == [] for w in backlog["weeks"])


def test_bad_ranges_are_refused(make_member):
    rpc = make_member(role="analyst").rpc
    for body, words in (
        ({"fromDate": "2026-03-10", "toDate": "2026-03-01"}, "fromDate must not be after toDate"),
        ({"fromDate": "2022-01-03", "toDate": "2026-01-05"}, "at most 104 weeks"),
        ({"fromDate": "1970-01-01"}, "at most 104 weeks"),
        ({"toDate": "10000-01-01"}, "toDate"),
        ({"fromDate": "yesterday"}, "fromDate"),
    ):
        for path in ("revenueOperations.throughput", "revenueOperations.backlog"):
            refused = rpc.query(path, body)
            assert refused.code == "BAD_REQUEST", (path, body, refused.body)
            assert words in refused.body["error"]["message"], refused.body
