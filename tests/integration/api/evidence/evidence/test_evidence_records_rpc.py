"""evidence.* reads, compare and tenancy over the wire, on SQLite and PostgreSQL.

The records are made by the real `evidence.service.record` from hand cell rows (the mart's shape) in the
member's tenant, so these tests need no pipeline run; calculateForIntervention on real marts is
tests/integration/api/evidence/evidence/test_evidence_hand.py.
"""

from __future__ import annotations

import math

import pytest

from tests.support import evidence_records
from tests.support.evidence_records import cell

PATTERN = "00000000000000aa"


def plan(member, pattern=PATTERN) -> int:
    made = member.rpc.mutation(
        "interventions.create",
        {
            "name": "Eligibility recheck, cardiology",
            "patternKey": pattern,
            "actionKey": "eligibility-recheck",
            "scope": {"payerKey": "AETNA", "category": "eligibility", "serviceLine": "cardiology"},
            "startDate": "2026-03-10",
        },
    )
    assert made.code is None, made
    return int(made.data["id"])


def record(services, member, intervention_id, treated, control) -> int:
    """A record of the hand cells, with a row of another payer class beside them: never the comparison."""
    other_class = cell("MEDICARE", "oncology", True, 50, 3, cls="medicare")
    return evidence_records.record(services, member, intervention_id, treated, control, extra=[other_class])


# Record 1: treated 4/10 -> 1/10, comparison 3/20 -> 5/20.
# DiD = (0.1 - 0.4) - (0.25 - 0.15) = -0.4
# var = 0.4*0.6/10 + 0.1*0.9/10 + 0.15*0.85/20 + 0.25*0.75/20 = 0.024 + 0.009 + 0.006375 + 0.009375 = 0.04875
SE1 = math.sqrt(0.04875)
# Record 2: treated 40/100 -> 20/100, comparison 30/100 -> 30/100: DiD = -0.2 - 0 = -0.2
# var = (0.24 + 0.16 + 0.21 + 0.21) / 100 = 0.0082
SE2 = math.sqrt(0.0082)
Z = 1.959963984540054


def test_a_record_carries_counts_intervals_and_did(services, make_member):
    member = make_member()
    ident = plan(member)
    rec = record(services, member, ident, ((4, 6), (1, 9)), ((3, 17), (5, 15)))
    got = member.rpc.query("evidence.getById", {"id": rec}).data
    assert (got["beforeFirstMonth"], got["beforeLastMonth"], got["afterFirstMonth"], got["afterLastMonth"]) == (
        "2026-01",
        "2026-02",
        "2026-03",  # the start date's month is "after"
        "2026-04",
    )
    t, c = got["treated"], got["control"]
    assert (t["before"]["events"], t["before"]["trials"], t["after"]["events"], t["after"]["trials"]) == (4, 10, 1, 10)
    assert (c["before"]["events"], c["before"]["trials"], c["after"]["events"], c["after"]["trials"]) == (3, 20, 5, 20)
    assert t["difference"] == pytest.approx(-0.3) and t["ciLow"] < -0.3 < t["ciHigh"]
    assert t["before"]["ciLow"] < 0.4 < t["before"]["ciHigh"]
    did = got["did"]
    assert did["estimate"] == pytest.approx(-0.4)
    assert did["standardError"] == pytest.approx(SE1)
    assert did["ciLow"] == pytest.approx(-0.4 - Z * SE1) and did["ciHigh"] == pytest.approx(-0.4 + Z * SE1)
    assert did["nTotal"] == 60 and did["minTrials"] == 30
    assert got["enoughTrials"] is False and got["significant"] is False  # 10 claims per treated cell < 30
    assert "Too few claims" in got["statement"] and got["comparisonPayerClass"] == "commercial"
    assert got["scope"]["payerKey"] == "AETNA" and got["patternKey"] == PATTERN
    assert got["computedBy"] == member.user_id and got["snapshotBuiltAt"].startswith("2026-06-02T03:00")
    status = member.rpc.query("interventionExecution.status", {"id": ident}).data
    assert status["evidenceCount"] == 1 and status["latestEvidence"]["id"] == rec
    assert status["latestEvidence"]["didEstimate"] == pytest.approx(-0.4)


def test_lists_and_compare(services, make_member):
    member = make_member()
    first_iv, other_iv = plan(member), plan(member, pattern="00000000000000bb")
    one = record(services, member, first_iv, ((4, 6), (1, 9)), ((3, 17), (5, 15)))
    two = record(services, member, first_iv, ((40, 60), (20, 80)), ((30, 70), (30, 70)))
    three = record(services, member, other_iv, ((40, 60), (20, 80)), ((30, 70), (30, 70)))
    listed = member.rpc.query("evidence.listForIntervention", {"interventionId": first_iv, "limit": 1})
    assert [r["id"] for r in listed.data["items"]] == [two] and listed.data["nextCursor"]
    more = member.rpc.query(
        "evidence.listForIntervention", {"interventionId": first_iv, "cursor": listed.data["nextCursor"]}
    )
    assert [r["id"] for r in more.data["items"]] == [one]
    by_pattern = member.rpc.query("evidence.listForPattern", {"patternKey": "00000000000000bb"}).data["items"]
    assert [r["id"] for r in by_pattern] == [three]
    cmp = member.rpc.query("evidence.compare", {"firstId": one, "secondId": two}).data
    # -0.4 - (-0.2) = -0.2, se = sqrt(0.04875 + 0.0082) = sqrt(0.05695)
    se = math.sqrt(0.04875 + 0.0082)
    diff = cmp["difference"]
    assert diff["estimate"] == pytest.approx(-0.2) and diff["standardError"] == pytest.approx(se)
    assert diff["ciLow"] == pytest.approx(-0.2 - Z * se) and diff["ciHigh"] == pytest.approx(-0.2 + Z * se)
    assert diff["pValue"] == pytest.approx(math.erfc(0.2 / se / math.sqrt(2)))
    assert diff["significant"] is False and diff["nTotal"] == 60 + 400
    assert cmp["first"]["id"] == one and cmp["second"]["id"] == two and "independent" in cmp["statement"]
    assert member.rpc.query("evidence.getById", {"id": two}).data["did"]["standardError"] == pytest.approx(SE2)


def test_a_scope_without_service_line_or_facility_has_no_did(services, make_member):
    member = make_member()
    made = member.rpc.mutation(
        "interventions.create",
        {
            "name": "Payer-wide recheck",
            "patternKey": PATTERN,
            "actionKey": "eligibility-recheck",
            "scope": {"payerKey": "AETNA", "category": "eligibility"},
            "startDate": "2026-03-01",
        },
    )
    rec = record(services, member, made.data["id"], ((4, 6), (1, 9)), ((3, 17), (5, 15)))
    got = member.rpc.query("evidence.getById", {"id": rec}).data
    # The treated slice is every AETNA cell: the same 4/10 -> 1/10 (the CIGNA rows are another payer)
    assert (got["treated"]["before"]["events"], got["treated"]["after"]["trials"]) == (4, 10)
    assert got["did"] is None and got["control"] is None and got["hasComparison"] is False
    assert "No comparison group" in got["statement"]
    with_other = member.rpc.query("evidence.compare", {"firstId": rec, "secondId": rec}).data["difference"]
    assert with_other["estimate"] is None and with_other["significant"] is False


def test_bad_input_and_another_clients_records(services, make_member):
    a, b = make_member(), make_member()
    ident = plan(a)
    rec = record(services, a, ident, ((4, 6), (1, 9)), ((3, 17), (5, 15)))
    for months in ({"monthsBefore": 0}, {"monthsAfter": 25}, {"monthsBefore": "six"}):
        got = a.rpc.mutation("evidence.calculateForIntervention", {"interventionId": ident, **months})
        assert got.code == "BAD_REQUEST", months
    assert a.rpc.query("evidence.listForPattern", {"patternKey": "XYZ"}).code == "BAD_REQUEST"
    assert b.rpc.mutation("evidence.calculateForIntervention", {"interventionId": ident}).code == "NOT_FOUND"
    assert b.rpc.query("evidence.getById", {"id": rec}).code == "NOT_FOUND"
    assert b.rpc.query("evidence.listForIntervention", {"interventionId": ident}).code == "NOT_FOUND"
    assert b.rpc.query("evidence.listForPattern", {"patternKey": PATTERN}).data["items"] == []
    mine = record(services, b, plan(b), ((4, 6), (1, 9)), ((3, 17), (5, 15)))
    assert b.rpc.query("evidence.compare", {"firstId": mine, "secondId": rec}).code == "NOT_FOUND"
    assert a.rpc.query("evidence.compare", {"firstId": rec, "secondId": rec}).code is None
