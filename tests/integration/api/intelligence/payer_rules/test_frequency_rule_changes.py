"""A client's frequency limits change only through payer rules' approval, and payerApplicability.forClaim
applies them and the platform's to each claim line against the patient's earlier claims, on SQLite and
PostgreSQL.

The claims (hand-made, claims.create): the commercial payer ACME1 (SBR09 CI) of `claim_body`; the patient is
the opaque reference PT-7 on each, a screening mammography (77067) per claim:
- FIRST on 2026-02-03, SECOND on 2026-06-01, and OTHER_PATIENT's on 2026-06-01 under another reference.
The client's limit: 77067 at most 1 per 11 full months for ACME1 from 2026-01-01 (its contract, mirroring
42 CFR 410.34's count). For a service on 2026-06-01 the window starts 11 months before June 2026, on
2025-07-01, so FIRST (2026-02-03) counts: 1 earlier + 1 = 2 > 1, SECOND exceeds; FIRST itself has nothing
before it (0 + 1 = 1, within).
"""

from __future__ import annotations

import uuid
from decimal import Decimal

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import join_as

AS_OF = "2026-07-01"
SOURCE = "ACME provider manual 2026, section 5.2 (screening mammography)"
LIMIT = {
    "payerType": "commercial",
    "payerId": "ACME1",
    "procedureCodes": "77067",
    "maxUnits": 1,
    "period": "months",
    "periodLength": 11,
    "effectiveFrom": "2026-01-01",
    "source": SOURCE,
}


@pytest.fixture
def manager_a(make_member):
    return make_member(role="admin")


def _claim(member, served: str, code: str = "77067", patient: str = "PT-7", **header) -> int:
    body = claim_body(
        f"FQ-{uuid.uuid4().hex[:8]}",
        patientRef=patient,
        statementFrom=served,
        statementTo=served,
        lines=[{"procedureCode": code, "charge": "150.00", "serviceDateFrom": served}],
        **header,
    )
    created = member.rpc.mutation("claims.create", body)
    assert created.status == 200, created.error
    return int(created.data["id"])


def _key(member, claim_id: int) -> str:
    return member.rpc.query("claims.get", {"id": claim_id}).data["claimKey"]


def _frequency(member, claim_id: int) -> list[dict]:
    out = member.rpc.query("payerApplicability.forClaim", {"claimId": claim_id, "asOf": AS_OF})
    assert out.status == 200, out.error
    return [r for r in out.data["rules"] if r["kind"] == "frequency_limit"]


def _decide(rpc, change_id: int, decision: str = "approve"):
    return rpc.mutation("payerRules.decide", {"id": change_id, "decision": decision, "reason": "per the contract"})


def test_an_approved_limit_flags_the_second_service_of_the_patient_and_not_the_first(manager_a, services):
    first = _claim(manager_a, "2026-02-03")
    second = _claim(manager_a, "2026-06-01")
    other_patient = _claim(manager_a, "2026-06-01", patient="PT-8")
    # no limit yet: the platform's are Medicare's, this payer is commercial
    assert _frequency(manager_a, second) == []

    proposed = manager_a.rpc.mutation("payerRules.proposeFrequency", LIMIT).data
    change = proposed["change"]
    assert (change["kind"], change["state"], proposed["created"]) == ("frequency", "proposed", True)
    assert (proposed["limit"]["id"], proposed["limit"]["version"], proposed["limit"]["terms"]) == (
        None,
        1,
        "at most 1 per 11 full months",
    )
    # the proposer cannot approve it; nothing applies yet
    own = _decide(manager_a.rpc, change["id"])
    assert own.code == "FORBIDDEN" and "another manager or admin" in own.error["message"]
    assert _frequency(manager_a, second) == []

    _uid, manager_b = join_as(manager_a, services, "manager")
    decided = _decide(manager_b, change["id"]).data
    written = decided["frequencyLimit"]
    assert (decided["change"]["state"], decided["rule"], decided["requirement"]) == ("approved", None, None)
    assert (decided["created"], written["origin"], written["version"], written["procedureCodes"]) == (
        True,
        "client",
        1,
        "77067",
    )
    assert decided["change"]["appliedRuleId"] == written["id"]

    (on_first,) = _frequency(manager_a, first)
    detail = on_first["frequency"]
    # FIRST on 2026-02-03: 11 months before February 2026 is March 2025; nothing before it: 0 + 1 = 1 <= 1
    assert (detail["windowFrom"], detail["windowTo"], Decimal(detail["used"]), detail["exceeds"]) == (
        "2025-03-01",
        "2026-02-03",
        0,
        False,
    )

    (on_second,) = _frequency(manager_a, second)
    assert on_second["reference"] == f"payer_frequency_limits/{written['id']}" and on_second["source"] == SOURCE
    assert on_second["scope"] == {
        "origin": "client",
        "breadth": "payer_specific",
        "payerType": "commercial",
        "payerId": "ACME1",
    }
    detail = on_second["frequency"]
    # SECOND on 2026-06-01: the window 2025-07-01 .. 2026-06-01 holds FIRST: 1 + 1 = 2 > 1
    assert (detail["windowFrom"], detail["windowTo"], Decimal(detail["used"]), Decimal(detail["units"])) == (
        "2025-07-01",
        "2026-06-01",
        1,
        1,
    )
    assert detail["exceeds"] is True
    assert [(e["serviceDate"], e["claimKey"]) for e in detail["earlier"]] == [("2026-02-03", _key(manager_a, first))]
    assert on_second["why"].endswith(
        "77067: at most 1 per 11 full months for this patient; 1 earlier on 2026-02-03, this line 1 -> exceeds"
    )
    assert "PT-7" not in on_second["why"]
    lines = manager_a.rpc.query("payerApplicability.forClaim", {"claimId": second, "asOf": AS_OF}).data["lines"]
    assert [(line["frequencyReference"], line["exceedsFrequency"]) for line in lines] == [
        (on_second["reference"], True)
    ]
    # another patient's claim on the same day: nothing earlier
    assert _frequency(manager_a, other_patient)[0]["frequency"]["exceeds"] is False

    listed = manager_a.rpc.query("payerRules.frequencyLimits", {"procedureCode": "77067"}).data
    assert [(i["id"], i["version"], i["effectiveTo"]) for i in listed["items"]] == [(written["id"], 1, None)]
    assert listed["defaults"] and {d["payerType"] for d in listed["defaults"]} == {"medicare"}

    # a withdrawn claim was never billed: FIRST withdrawn, SECOND has nothing before it
    withdrawn = manager_a.rpc.mutation("claims.withdraw", {"id": first, "reason": "entered twice"})
    assert withdrawn.status == 200, withdrawn.error
    assert _frequency(manager_a, second)[0]["frequency"]["exceeds"] is False


def test_a_new_version_closes_the_one_before_and_the_same_date_updates_it(manager_a, services):
    _claim(manager_a, "2026-02-03")
    second = _claim(manager_a, "2026-06-01")
    _uid, manager_b = join_as(manager_a, services, "manager")
    first_version = _decide(
        manager_b, manager_a.rpc.mutation("payerRules.proposeFrequency", LIMIT).data["change"]["id"]
    )
    first_id = first_version.data["frequencyLimit"]["id"]
    # a second version from 2026-05-01 allows 2 per 11 full months
    newer = {**LIMIT, "maxUnits": 2, "effectiveFrom": "2026-05-01"}
    proposed = manager_a.rpc.mutation("payerRules.proposeFrequency", newer).data
    assert (proposed["created"], proposed["limit"]["id"]) == (True, None)  # another date: a new version
    second_id = _decide(manager_b, proposed["change"]["id"]).data["frequencyLimit"]["id"]
    items = manager_a.rpc.query("payerRules.frequencyLimits", {"payerId": "ACME1"}).data["items"]
    # the first ends the day before the second starts: 2026-05-01 - 1 = 2026-04-30
    assert [(i["id"], i["maxUnits"], i["effectiveTo"]) for i in items] == [
        (second_id, 2, None),
        (first_id, 1, "2026-04-30"),
    ]
    (rule,) = _frequency(manager_a, second)
    # 2026-06-01 is under the second version: 1 earlier + 1 = 2, not more than 2
    assert (rule["reference"], rule["frequency"]["exceeds"]) == (f"payer_frequency_limits/{second_id}", False)

    # the same scope and date again updates it: version 2, back to 1 unit, and the line exceeds again
    again = manager_a.rpc.mutation("payerRules.proposeFrequency", {**newer, "maxUnits": 1}).data
    assert (again["created"], again["limit"]["id"], again["limit"]["version"]) == (False, second_id, 2)
    decided = _decide(manager_b, again["change"]["id"]).data
    assert (decided["created"], decided["frequencyLimit"]["version"]) == (False, 2)
    assert _frequency(manager_a, second)[0]["frequency"]["exceeds"] is True


def test_the_platform_limit_flags_a_medicare_awv_within_11_full_months(manager_a, make_member):
    # Medicare Part B (SBR09 MB): the platform's 42 CFR 410.15 limit, G0438-G0439 at most 1 per 11 full months
    medicare = {"filingIndicator": "MB", "payer": "MEDICARE PART B", "payerId": "MCR01"}
    initial = _claim(manager_a, "2026-02-03", "G0438", **medicare)
    subsequent = _claim(manager_a, "2026-06-01", "G0439", **medicare)
    # another client's claim of the same patient reference is not this client's history
    stranger = make_member(role="admin")
    _claim(stranger, "2026-05-01", "G0439", **medicare)

    (on_initial,) = _frequency(manager_a, initial)
    # G0438: its own lifetime limit (the narrower code) and nothing before it
    assert (on_initial["reference"], on_initial["frequency"]["windowFrom"], on_initial["frequency"]["exceeds"]) == (
        "platform/medicare/G0438/frequency",
        None,
        False,
    )
    (on_subsequent,) = _frequency(manager_a, subsequent)
    assert on_subsequent["reference"] == "platform/medicare/G0438-G0439/frequency"
    assert on_subsequent["source"].startswith("42 CFR 410.15")
    assert (on_subsequent["scope"]["origin"], on_subsequent["effectiveFrom"]) == ("platform", "2011-01-01")
    detail = on_subsequent["frequency"]
    # 2026-06-01: the window from 2025-07-01 holds the initial AWV of 2026-02-03 (G0438 is in the range);
    # the stranger's G0439 of 2026-05-01 is another client's: used is 1, not 2
    assert (Decimal(detail["used"]), detail["exceeds"]) == (1, True)
    assert [e["serviceDate"] for e in detail["earlier"]] == ["2026-02-03"]
    # the stranger's claim: only the stranger's own history, none before 2026-05-01
    assert stranger.rpc.query("payerApplicability.forClaim", {"claimId": subsequent}).code == "NOT_FOUND"

    # two AWVs on one claim of another patient: line 1 has nothing before it, line 2 has line 1 (1 + 1 > 1)
    twice = claim_body(
        f"FQ-{uuid.uuid4().hex[:8]}",
        patientRef="PT-9",
        statementFrom="2026-06-01",
        statementTo="2026-06-01",
        lines=[{"procedureCode": "G0439", "charge": "150.00", "serviceDateFrom": "2026-06-01"}] * 2,
        **medicare,
    )
    both = int(manager_a.rpc.mutation("claims.create", twice).data["id"])
    assert [(r["frequency"]["lineNumber"], r["frequency"]["exceeds"]) for r in _frequency(manager_a, both)] == [
        (1, False),
        (2, True),
    ]


def test_bad_frequency_proposals_are_refused_with_a_clear_message(manager_a):
    propose = "payerRules.proposeFrequency"
    for change, field in [
        ({"period": "weekly"}, "period"),  # an unknown period
        ({"maxUnits": 0}, "maxUnits"),  # N <= 0
        ({"maxUnits": -2}, "maxUnits"),
        ({"periodLength": 0}, "periodLength"),
        ({"periodLength": None}, "periodLength"),  # months without N
        ({"period": "lifetime"}, "periodLength"),  # a lifetime with N = 11
        ({"procedureCodes": "77068-77067"}, "procedureCodes"),  # a reversed range
        ({"procedureCodes": "77067-G0121"}, "procedureCodes"),  # a range across kinds
        ({"procedureCodes": "7706"}, "procedureCode"),
        ({"effectiveTo": "2025-12-31"}, "effectiveTo"),
    ]:
        refused = manager_a.rpc.mutation(propose, {**LIMIT, **change})
        assert refused.code == "BAD_REQUEST" and field in refused.error["message"], (change, refused.body)
    assert manager_a.rpc.query("payerRules.changes", {"kind": "frequency"}).data["items"] == []
