"""evidenceSynthesis.* over the wire, on SQLite and PostgreSQL: pooling by hand, one study, none, tenancy,
the reach of a member scoped to some clients, bad input and compare.

The evidence records are made by the real `evidence.service.record` from hand cell rows (the mart's shape)
in each client, as tests/integration/api/evidence/evidence/test_evidence_records_rpc.py does, so no
pipeline run is needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from tests.support.evidence_records import record
from tests.support.tenancy import join

PATTERN = "00000000000000aa"
ACTION = "eligibility-recheck"
Z = 1.959963984540054


@dataclass(frozen=True)
class Where:
    """Who stores a record, in which client."""

    organization_id: int
    client_id: int
    user_id: int
    rpc: object


def at(member, client_id: int | None = None) -> Where:
    client = client_id or member.client_id
    return Where(member.organization_id, client, member.user_id, member.rpc.as_(member.token, client))


def plan(where: Where, pattern=PATTERN, action=ACTION, line: str | None = "cardiology") -> int:
    scope = {"payerKey": "AETNA", "category": "eligibility"} | ({"serviceLine": line} if line else {})
    made = where.rpc.mutation(
        "interventions.create",
        {
            "name": "Eligibility recheck",
            "patternKey": pattern,
            "actionKey": action,
            "scope": scope,
            "startDate": "2026-03-10",
        },
    )
    assert made.code is None, made
    return int(made.data["id"])


# Study A, 100 claims per cell: treated 60/100 -> 40/100, comparison 20/100 -> 20/100
#   DiD = (0.4 - 0.6) - (0.2 - 0.2) = -0.2
#   var = (0.6*0.4 + 0.4*0.6 + 0.2*0.8 + 0.2*0.8)/100 = (0.24 + 0.24 + 0.16 + 0.16)/100 = 0.008, n = 400
STUDY_A = ((60, 40), (40, 60)), ((20, 80), (20, 80))
# Study B, 50 claims per cell: treated 20/50 -> 10/50, comparison 10/50 -> 20/50
#   DiD = (0.2 - 0.4) - (0.4 - 0.2) = -0.4
#   var = (0.24 + 0.16 + 0.16 + 0.24)/50 = 0.016, n = 200
STUDY_B = ((20, 30), (10, 40)), ((10, 40), (20, 30))

# Pooled by hand. Fixed effect: w = 1/0.008 = 125 and 1/0.016 = 62.5, W = 187.5
#   fixed = (125*-0.2 + 62.5*-0.4)/187.5 = (-25 - 25)/187.5 = -0.2666667; se = sqrt(1/187.5) = 0.0730297
# Q = 125*(-0.2 + 0.2666667)^2 + 62.5*(-0.4 + 0.2666667)^2 = 0.5555556 + 1.1111111 = 1.6666667 on 1 df
#   p = P(chi2_1 > 5/3) = erfc(sqrt(5/6)) = 0.196706
# C = W - (125^2 + 62.5^2)/W = 187.5 - 19531.25/187.5 = 187.5 - 104.1666667 = 83.3333333
#   tau² = (Q - df)/C = 0.6666667/83.3333333 = 0.008; I² = (Q - df)/Q = 0.6666667/1.6666667 = 0.4
# Random effects: w* = 1/(0.008 + 0.008) = 62.5 and 1/(0.016 + 0.008) = 41.6666667, W* = 104.1666667
#   random = (62.5*-0.2 + 41.6666667*-0.4)/104.1666667 = (-12.5 - 16.6666667)/104.1666667 = -0.28
#   se = sqrt(1/104.1666667) = sqrt(0.0096) = 0.0979796
FIXED, FIXED_SE = -0.2666667, 0.0730297
RANDOM, RANDOM_SE = -0.28, 0.0979796


def calculate(rpc, pattern=PATTERN, action=ACTION):
    return rpc.mutation("evidenceSynthesis.calculateForPattern", {"patternKey": pattern, "actionKey": action})


def test_two_clients_pooled_by_hand(services, make_member):
    a, stranger = make_member(), make_member()
    satellite = a.rpc.mutation("organizations.addClient", {"name": "Satellite"}).data["id"]
    home, sat = at(a), at(a, satellite)
    first = plan(home)
    record(services, home, first, *STUDY_B)  # an older record of the same intervention: superseded
    study_a = record(services, home, first, *STUDY_A)
    study_b = record(services, sat, plan(sat), *STUDY_B)
    record(services, home, plan(home, action="prior-auth-check"), *STUDY_B)  # another action
    record(services, home, plan(home, pattern="00000000000000bb"), *STUDY_B)  # another pattern
    theirs = at(stranger)
    record(services, theirs, plan(theirs), *STUDY_B)  # another organization's: never pooled

    got = calculate(a.rpc)
    assert got.code is None, got
    s = got.data
    assert [(x["evidenceId"], x["clientId"], x["n"]) for x in s["studies"]] == [
        (study_a, a.client_id, 400),
        (study_b, satellite, 200),
    ]
    assert s["studies"][0]["effect"] == pytest.approx(-0.2)
    assert s["studies"][0]["standardError"] == pytest.approx(math.sqrt(0.008))
    assert s["studies"][1]["ciLow"] == pytest.approx(-0.4 - Z * math.sqrt(0.016))
    assert (s["nStudies"], s["nTotal"], s["excludedInterventions"], s["organizationWide"]) == (2, 600, 0, True)
    assert s["fixed"]["estimate"] == pytest.approx(FIXED, abs=5e-8)
    assert s["fixed"]["standardError"] == pytest.approx(FIXED_SE, abs=5e-8)
    assert s["random"]["estimate"] == pytest.approx(RANDOM, abs=5e-8)
    assert s["random"]["standardError"] == pytest.approx(RANDOM_SE, abs=5e-8)
    assert s["random"]["ciLow"] == pytest.approx(RANDOM - Z * RANDOM_SE, abs=1e-7)
    assert s["random"]["ciHigh"] == pytest.approx(RANDOM + Z * RANDOM_SE, abs=1e-7)
    h = s["heterogeneity"]
    assert h["tau2"] == pytest.approx(0.008, abs=5e-10) and h["i2"] == pytest.approx(0.4, abs=5e-8)
    assert h["q"] == pytest.approx(1.6666667, abs=5e-8) and h["qDf"] == 1
    assert h["qPValue"] == pytest.approx(math.erfc(math.sqrt(5 / 6)), abs=1e-9)
    assert "2 client(s)" in s["statement"] and "600 claims" in s["statement"]
    assert "heterogeneity" in s["statement"] and "poorly estimated" in s["statement"]
    assert s["computedBy"] == a.user_id

    # Stored: read back, listed by pattern and by action
    assert a.rpc.query("evidenceSynthesis.getById", {"id": s["id"]}).data == s
    by_pattern = a.rpc.query("evidenceSynthesis.listForPattern", {"patternKey": PATTERN}).data["items"]
    by_action = a.rpc.query("evidenceSynthesis.listForAction", {"actionKey": ACTION}).data["items"]
    assert [x["id"] for x in by_pattern] == [x["id"] for x in by_action] == [s["id"]]
    assert a.rpc.query("evidenceSynthesis.listForAction", {"actionKey": "prior-auth-check"}).data["items"] == []

    # Another organization: nothing of it, and its own pooling holds its one study only
    assert stranger.rpc.query("evidenceSynthesis.getById", {"id": s["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("evidenceSynthesis.listForPattern", {"patternKey": PATTERN}).data["items"] == []
    assert calculate(stranger.rpc).data["nStudies"] == 1


def test_a_member_reaching_one_client_pools_and_reads_that_client_only(services, make_member):
    a = make_member()
    satellite = a.rpc.mutation("organizations.addClient", {"name": "Satellite"}).data["id"]
    home, sat = at(a), at(a, satellite)
    study_a = record(services, home, plan(home), *STUDY_A)
    record(services, sat, plan(sat), *STUDY_B)
    both = calculate(a.rpc).data
    assert both["nStudies"] == 2
    _, _, _, token = join(services, a.rpc, a.organization_id, "specialist", client_ids=[a.client_id])
    scoped = a.rpc.as_(token, a.client_id)
    # The organization-wide synthesis holds the satellite's evidence: hidden from a member not reaching it
    assert scoped.query("evidenceSynthesis.getById", {"id": both["id"]}).code == "NOT_FOUND"
    assert scoped.query("evidenceSynthesis.listForPattern", {"patternKey": PATTERN}).data["items"] == []
    own = calculate(scoped).data
    assert [x["evidenceId"] for x in own["studies"]] == [study_a] and own["organizationWide"] is False
    assert scoped.query("evidenceSynthesis.listForAction", {"actionKey": ACTION}).data["items"][0]["id"] == own["id"]
    assert scoped.query("evidenceSynthesis.compare", {"firstId": own["id"], "secondId": both["id"]}).code == "NOT_FOUND"
    # The organization-wide member reads both
    assert len(a.rpc.query("evidenceSynthesis.listForPattern", {"patternKey": PATTERN}).data["items"]) == 2


def test_one_study(services, make_member):
    a = make_member()
    home = at(a)
    study = record(services, home, plan(home), *STUDY_A)
    s = calculate(a.rpc).data
    # One study: both estimates are its DiD -0.2 with se sqrt(0.008) = 0.0894427; no heterogeneity
    se = math.sqrt(0.008)
    for model in ("fixed", "random"):
        assert s[model]["estimate"] == pytest.approx(-0.2) and s[model]["standardError"] == pytest.approx(se)
        assert s[model]["ciLow"] == pytest.approx(-0.2 - Z * se) and s[model]["ciHigh"] == pytest.approx(-0.2 + Z * se)
    assert s["heterogeneity"] is None and s["nStudies"] == 1 and s["nTotal"] == 400
    assert [x["evidenceId"] for x in s["studies"]] == [study]
    assert "No heterogeneity can be estimated" in s["statement"]


def test_no_study_is_a_precondition(services, make_member):
    a = make_member()
    got = calculate(a.rpc)
    assert got.code == "PRECONDITION_FAILED" and "evidence.calculateForIntervention" in got.error["message"]
    # An intervention whose scope names no service line has evidence, but no DiD: still nothing to pool
    home = at(a)
    record(services, home, plan(home, line=None), *STUDY_A)
    got = calculate(a.rpc)
    assert got.code == "PRECONDITION_FAILED" and "none with an estimate" in got.error["message"]
    # With a usable study beside it, that one is pooled and the other counted as left out
    record(services, home, plan(home), *STUDY_A)
    s = calculate(a.rpc).data
    assert s["nStudies"] == 1 and s["excludedInterventions"] == 1 and "left out" in s["statement"]


def test_bad_input(make_member):
    a = make_member()
    for bad in (
        {"patternKey": "XYZ", "actionKey": ACTION},
        {"patternKey": PATTERN.upper(), "actionKey": ACTION},
        {"patternKey": PATTERN, "actionKey": "Not A Slug"},
        {"patternKey": PATTERN, "actionKey": "x" * 65},
        {"patternKey": PATTERN},
    ):
        assert a.rpc.mutation("evidenceSynthesis.calculateForPattern", bad).code == "BAD_REQUEST", bad
    assert a.rpc.query("evidenceSynthesis.getById", {"id": 0}).code == "BAD_REQUEST"
    assert a.rpc.query("evidenceSynthesis.listForPattern", {"patternKey": "g" * 16}).code == "BAD_REQUEST"
    assert a.rpc.query("evidenceSynthesis.listForAction", {"actionKey": ""}).code == "BAD_REQUEST"
    assert a.rpc.query("evidenceSynthesis.compare", {"firstId": 1}).code == "BAD_REQUEST"


def test_compare_by_hand(services, make_member):
    a, b = make_member(), make_member()
    satellite = a.rpc.mutation("organizations.addClient", {"name": "Satellite"}).data["id"]
    home, sat = at(a), at(a, satellite)
    record(services, home, plan(home), *STUDY_A)
    one = calculate(a.rpc).data  # study A alone: -0.2, se² = 0.008
    record(services, sat, plan(sat), *STUDY_B)
    two = calculate(a.rpc).data  # A and B: random -0.28, se² = 0.0096
    got = a.rpc.query("evidenceSynthesis.compare", {"firstId": two["id"], "secondId": one["id"]}).data
    # -0.28 - (-0.2) = -0.08; se = sqrt(0.0096 + 0.008) = sqrt(0.0176) = 0.1326650
    se = math.sqrt(0.0176)
    d = got["difference"]
    assert d["estimate"] == pytest.approx(-0.08, abs=5e-8) and d["standardError"] == pytest.approx(se, abs=5e-8)
    assert d["ciLow"] == pytest.approx(-0.08 - Z * se, abs=1e-7) and d["ciHigh"] == pytest.approx(
        -0.08 + Z * se, abs=1e-7
    )
    # p = 2 * P(Z > 0.08/0.1326650 = 0.603023) = erfc(0.603023/sqrt 2) = 0.546494
    assert d["pValue"] == pytest.approx(math.erfc(0.08 / se / math.sqrt(2)), abs=1e-7)
    assert d["significant"] is False and d["sharedStudies"] == 1 and d["nTotal"] == 600 + 400
    assert got["first"]["id"] == two["id"] and got["second"]["id"] == one["id"]
    assert "independent" in got["statement"] and "share 1 evidence record" in got["statement"]
    # Another organization's synthesis: NOT_FOUND, never compared
    theirs = at(b)
    record(services, theirs, plan(theirs), *STUDY_A)
    other = calculate(b.rpc).data
    assert a.rpc.query("evidenceSynthesis.compare", {"firstId": one["id"], "secondId": other["id"]}).code == "NOT_FOUND"
    assert b.rpc.query("evidenceSynthesis.compare", {"firstId": other["id"], "secondId": one["id"]}).code == "NOT_FOUND"
