"""policyImpact.assess over the real app, on SQLite and PostgreSQL. Dates and sums counted by hand.

Open cases: INST-1 (tests/fixtures/x12/hand/deadlines_institutional.837 + .835), Medicare Part A (payer
MCR01), denied on a remittance of 2026-03-02: its working case's redetermination (42 CFR 405.942) is due
received 03-02 + 5 = 03-07, + 120 days = Sunday 07-05 -> Monday 2026-07-06. A limit of 60 days from
2026-01-01: 03-07 + 60 = Wednesday 2026-05-06 (Mar 24 + Apr 30 + May 6), 61 days sooner (May 25 + Jun 30 +
Jul 6); as of 2026-05-07 it would be past due. From 2026-04-01 it does not apply (noticed 03-02).

Future claims: POS-1 (tests/fixtures/x12/hand/prior_auth_place_plan.837), payer HPP01, two lines of 70551:
500.00 on 2026-03-05 and 600.00 on 2026-03-06. Over the 3 months 2026-01..2026-03: March 1 claim, 2 lines,
1,100.00; averages 1/3 = 0.33 claims and 1,100.00 / 3 = 366.67 a month; both lines lack an authorization
until one approved for line 1 (1 unit, 2026-03-01..2026-03-31) covers it.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.integration.api.denials.conftest import HAND, confirm, post
from tests.integration.api.money.ingestion.conftest import upload_json

D = Decimal
LIMIT = {"kind": "appeal_limit", "payerId": "MCR01", "days": 60, "effectiveFrom": "2026-01-01"}
AUTH = {
    "kind": "authorization",
    "payerId": "hpp01",
    "procedureCodes": "70551-70553",
    "effectiveFrom": "2026-04-01",
    "months": 3,
}


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _upload_837(rpc, name: str) -> None:
    batch = upload_json(rpc, (HAND / name).read_bytes(), name, "ingestion.uploadUniversal").data["batch"]
    assert confirm(rpc, batch["id"]).data


def _institutional(member) -> None:
    _upload_837(member.rpc, "deadlines_institutional.837")
    post(member.rpc, "deadlines_institutional.835")


def assess(rpc, change, as_of):
    return rpc.query("policyImpact.assess", {"change": change, "asOf": as_of})


def test_a_shorter_appeal_limit_moves_the_payers_working_case(member):
    _institutional(member)
    out = assess(member.rpc, LIMIT, "2026-03-10").data
    cases = out["openCases"]
    assert (out["kind"], out["futureClaims"], cases["checked"], cases["moved"], cases["pastDue"]) == (
        "appeal_limit",
        None,
        1,
        1,
        0,
    )
    [case] = cases["items"]
    assert (case["payerId"], case["payerType"], case["level"], case["basisDate"]) == (
        "MCR01",
        "medicare",
        "redetermination",
        "2026-03-02",
    )
    assert (case["dueOn"], case["newDueOn"], case["daysMoved"], case["pastDue"]) == (
        "2026-07-06",
        "2026-05-06",
        -61,
        False,
    )
    late = assess(member.rpc, LIMIT, "2026-05-07").data["openCases"]
    assert (late["pastDue"], late["items"][0]["pastDue"]) == (1, True)
    # the stored deadline is untouched: nothing written
    stored = member.rpc.query("deadlines.forCase", {"caseId": case["caseId"]}).data
    assert "2026-07-06" in str(stored) and "2026-05-06" not in str(stored)


def test_the_change_applies_from_its_date_and_scope_only(member):
    _institutional(member)
    later = assess(member.rpc, {**LIMIT, "effectiveFrom": "2026-04-01"}, "2026-03-10").data["openCases"]
    assert (later["checked"], later["moved"], later["items"]) == (1, 0, [])
    other_type = {"kind": "appeal_limit", "payerType": "medicaid", "days": 60, "effectiveFrom": "2026-01-01"}
    assert assess(member.rpc, other_type, "2026-03-10").data["openCases"]["checked"] == 0
    type_wide = {"kind": "appeal_limit", "payerType": "medicare", "days": 60, "effectiveFrom": "2026-01-01"}
    [case] = assess(member.rpc, type_wide, "2026-03-10").data["openCases"]["items"]
    assert case["newDueOn"] == "2026-05-06"
    other_payer = assess(member.rpc, {**LIMIT, "payerId": "NOBODY"}, "2026-03-10").data["openCases"]
    assert other_payer["checked"] == 0


def test_an_authorization_requirement_meets_the_payers_claims_history(member):
    _upload_837(member.rpc, "prior_auth_place_plan.837")
    out = assess(member.rpc, AUTH, "2026-03-31").data["futureClaims"]
    assert (out["procedureCodes"], out["fromMonth"], out["toMonth"]) == ("70551-70553", "2026-01", "2026-03")
    months = [
        (m["month"], m["claims"], m["lines"], D(m["charges"]), m["linesWithoutAuthorization"]) for m in out["months"]
    ]
    assert months == [
        ("2026-01", 0, 0, D("0.00"), 0),
        ("2026-02", 0, 0, D("0.00"), 0),
        ("2026-03", 1, 2, D("1100.00"), 2),
    ]
    assert (out["monthlyClaims"], D(out["monthlyCharges"]), out["lines"], out["linesWithoutAuthorization"]) == (
        0.33,
        D("366.67"),
        2,
        2,
    )
    claim_id = int(member.rpc.query("claims.list", {"claimKey": "POS-1"}).data["items"][0]["id"])
    requested = member.rpc.mutation("priorAuthorization.request", {"claimId": claim_id, "lineNumber": 1}).data
    approved = member.rpc.mutation(
        "priorAuthorization.record",
        {
            "id": requested["id"],
            "outcome": "approved",
            "authorizationNumber": "PA-1",
            "approvedUnits": 1,
            "validFrom": "2026-03-01",
            "validTo": "2026-03-31",
        },
    )
    assert approved.status == 200, approved.body
    assert assess(member.rpc, AUTH, "2026-03-31").data["futureClaims"]["linesWithoutAuthorization"] == 1
    elsewhere = assess(member.rpc, {**AUTH, "procedureCodes": "99213"}, "2026-03-31").data["futureClaims"]
    assert (elsewhere["lines"], D(elsewhere["monthlyCharges"])) == (0, D("0.00"))
    before = assess(member.rpc, AUTH, "2026-02-28").data["futureClaims"]  # March is after asOf
    assert before["lines"] == 0 and before["toMonth"] == "2026-02"


def test_another_clients_cases_and_claims_are_not_seen(member, make_member):
    _institutional(member)
    _upload_837(member.rpc, "prior_auth_place_plan.837")
    other = make_member(role="admin")
    assert assess(other.rpc, LIMIT, "2026-03-10").data["openCases"]["checked"] == 0
    assert assess(other.rpc, AUTH, "2026-03-31").data["futureClaims"]["lines"] == 0


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({**AUTH, "procedureCodes": "ABCDE"}, "procedureCodes"),
        ({**AUTH, "procedureCodes": "70553-70551"}, "procedureCodes"),
        ({"kind": "appeal_limit", "days": 60, "effectiveFrom": "2026-01-01"}, "payerId"),
        ({**LIMIT, "days": 0}, "days"),
        ({**AUTH, "months": 25}, "months"),
        ({"kind": "formulary"}, "kind"),
    ],
)
def test_bad_changes_are_refused(member, change, words):
    bad = assess(member.rpc, change, "2026-03-10")
    assert bad.code == "BAD_REQUEST", bad.body
    assert words.lower() in str(bad.body).lower()
