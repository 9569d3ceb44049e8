"""evidence.calculateForIntervention on real marts: hand-written claims (evidence_claims.837) and their
remittances (evidence_payer_*.835, evidence_medicare_*.835), every claim billed 100.00, paid in full
(CLP02=1) or denied in full (CLP02=4, one claim-level CO CAS), paid on the 15th of each month of 2026.

The 837 sets each claim's service line (its one line: SV2 0510 HC:99213 -> evaluation_management, SV2 0320
HC:71046 -> radiology, the AMA CPT sections of the service_line_codes seed) and facility (billing NPI
1234567893); CLP06 sets the payer class (12 PPO -> commercial, MB -> medicare).

    EVIDENCE PAYER (commercial)        Jan             Feb         Mar               Apr             May
      evaluation_management (treated)  15: 6 CO-27,    15: 5 CO-31 15: 2 CO-27,      15: 1 CO-27     6: 5 CO-27
                                       1 CO-50                     1 CO-50
      radiology (comparison)           15: 3 CO-27     15: 3 CO-27 15: 3 CO-27       15: 2 CO-27,
                                                                                     1 CO-50
    EVIDENCE MEDICARE (medicare)
      radiology (another class)        10: 5 CO-27                                   5 paid

CO-27 and CO-31 are eligibility denials, CO-50 medical necessity (carc_denial_categories seed; X12 CARC list).
The intervention starts 2026-03-10: its month, March, is the first month "after".
"""

from __future__ import annotations

import math

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

FILES_837 = ("evidence_claims.837",)
FILES_835 = tuple(
    f"evidence_{name}.835"
    for name in ("payer_jan", "payer_feb", "payer_mar", "payer_apr", "payer_may", "medicare_jan", "medicare_apr")
)
Z = 1.959963984540054


@before_shared_run
def evidence_setup(hand_world: HandWorld) -> None:
    claims = hand_world.post(*FILES_837, procedure="ingestion.uploadUniversal")
    remits = hand_world.post(*FILES_835)
    assert [b["status"] for b in claims + remits] == ["confirmed"] * 8, claims + remits


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(evidence_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def plan(world, scope: dict, pattern: str = "00000000000e71de") -> int:
    made = world.rpc.mutation(
        "interventions.create",
        {
            "name": "Eligibility recheck at scheduling",
            "patternKey": pattern,
            "actionKey": "eligibility-recheck",
            "scope": {"payerKey": "EVIDENCE PAYER", "category": "eligibility", **scope},
            "startDate": "2026-03-10",
        },
    )
    assert made.code is None, made
    return int(made.data["id"])


def calculate(world, ident: int, **months) -> dict:
    got = world.rpc.mutation("evidence.calculateForIntervention", {"interventionId": ident, **months})
    assert got.code is None, got
    return got.data


def counts(change: dict) -> tuple[int, int, int, int]:
    return (
        change["before"]["events"],
        change["before"]["trials"],
        change["after"]["events"],
        change["after"]["trials"],
    )


def test_the_mart_cells_carry_the_hand_service_lines_and_classes(world):
    rows = world.marts(
        "select payer_key, payer_class, service_line, facility, sum(claims) from fct_denial_cells_monthly "
        "where client_id = ? group by all order by all",
        [world.tenant.client_id],
    )
    assert rows == [
        ("EVIDENCE MEDICARE", "medicare", "radiology", "1234567893", 15),
        ("EVIDENCE PAYER", "commercial", "evaluation_management", "1234567893", 66),  # 15 x 4 + 6
        ("EVIDENCE PAYER", "commercial", "radiology", "1234567893", 60),
    ]


def test_difference_in_differences_against_the_other_service_line(world):
    ident = plan(world, {"serviceLine": "evaluation_management"})
    got = calculate(world, ident, monthsBefore=2, monthsAfter=2)
    assert (got["beforeFirstMonth"], got["beforeLastMonth"], got["afterFirstMonth"], got["afterLastMonth"]) == (
        "2026-01",
        "2026-02",
        "2026-03",
        "2026-04",
    )
    # treated: before Jan 6 CO-27 + Feb 5 CO-31 = 11 of 30 (the CO-50 is a trial, not an event);
    #          after Mar 2 + Apr 1 = 3 of 30 (May is outside the window)
    assert counts(got["treated"]) == (11, 30, 3, 30)
    # comparison: EVIDENCE PAYER radiology (commercial), 3 + 3 = 6 of 30, then 3 + 2 = 5 of 30;
    # EVIDENCE MEDICARE is another payer class
    assert counts(got["control"]) == (6, 30, 5, 30)
    assert got["comparisonPayerClass"] == "commercial"
    # DiD = (3/30 - 11/30) - (5/30 - 6/30) = -8/30 + 1/30 = -7/30
    # var = (11/30)(19/30)/30 + 0.1*0.9/30 + 0.2*0.8/30 + (1/6)(5/6)/30
    #     = 0.0077407 + 0.003 + 0.0053333 + 0.0046296 = 0.0207037
    se = math.sqrt((11 / 30) * (19 / 30) / 30 + 0.1 * 0.9 / 30 + 0.2 * 0.8 / 30 + (1 / 6) * (5 / 6) / 30)
    did = got["did"]
    assert did["estimate"] == pytest.approx(-7 / 30)
    assert did["standardError"] == pytest.approx(se) and se == pytest.approx(0.143888, abs=1e-6)
    assert did["ciLow"] == pytest.approx(-7 / 30 - Z * se) and did["ciHigh"] == pytest.approx(-7 / 30 + Z * se)
    # z = -0.23333 / 0.143888 = -1.6216: p = erfc(1.6216 / sqrt 2) = 0.105
    assert did["pValue"] == pytest.approx(math.erfc((7 / 30) / se / math.sqrt(2)))
    assert did["nTotal"] == 120
    assert got["enoughTrials"] is True and got["significant"] is False  # 30 claims in every cell
    assert "not distinguishable from no effect" in got["statement"]
    assert got["treated"]["difference"] == pytest.approx(-8 / 30)
    status = world.rpc.query("interventionExecution.status", {"id": ident}).data
    assert status["latestEvidence"]["id"] == got["id"]


def test_default_windows_take_six_months_each_side(world):
    ident = plan(world, {"serviceLine": "evaluation_management"})
    got = calculate(world, ident)  # before 2025-09..2026-02, after 2026-03..2026-08
    assert (got["beforeFirstMonth"], got["afterLastMonth"]) == ("2025-09", "2026-08")
    # after now holds May: 3 + 5 CO-27 = 8 of 30 + 6 = 36
    assert counts(got["treated"]) == (11, 30, 8, 36)
    assert counts(got["control"]) == (6, 30, 5, 30)


def test_a_carc_narrows_the_outcome_and_two_records_compare(world):
    all_elig = calculate(world, plan(world, {"serviceLine": "evaluation_management"}), monthsBefore=2, monthsAfter=2)
    ident = plan(world, {"serviceLine": "evaluation_management", "carc": "27"}, pattern="00000000000e71df")
    co27 = calculate(world, ident, monthsBefore=2, monthsAfter=2)
    # CO-27 only: treated 6 of 30 (Feb's CO-31 no longer counts) -> 3 of 30; comparison unchanged
    assert counts(co27["treated"]) == (6, 30, 3, 30)
    assert counts(co27["control"]) == (6, 30, 5, 30)
    # DiD = (3/30 - 6/30) - (5/30 - 6/30) = -2/30
    se2 = math.sqrt(0.2 * 0.8 / 30 + 0.1 * 0.9 / 30 + 0.2 * 0.8 / 30 + (1 / 6) * (5 / 6) / 30)  # sqrt(0.0182963)
    assert co27["did"]["estimate"] == pytest.approx(-2 / 30)
    assert co27["did"]["standardError"] == pytest.approx(se2)
    cmp = world.rpc.query("evidence.compare", {"firstId": all_elig["id"], "secondId": co27["id"]}).data
    # -7/30 - (-2/30) = -5/30; se = sqrt(0.0207037 + 0.0182963) = sqrt(0.039)
    diff = cmp["difference"]
    assert diff["estimate"] == pytest.approx(-5 / 30)
    assert diff["standardError"] == pytest.approx(math.sqrt(0.039), rel=1e-5)
    assert diff["nTotal"] == 240 and diff["significant"] is False
    by_pattern = world.rpc.query("evidence.listForPattern", {"patternKey": "00000000000e71df"}).data["items"]
    assert [r["id"] for r in by_pattern] == [co27["id"]]


def test_a_payer_wide_scope_is_before_after_only(world):
    got = calculate(world, plan(world, {}), monthsBefore=2, monthsAfter=2)
    # every EVIDENCE PAYER claim: before 11 + 6 = 17 of 60, after 3 + 5 = 8 of 60
    assert counts(got["treated"]) == (17, 60, 8, 60)
    assert got["treated"]["difference"] == pytest.approx(8 / 60 - 17 / 60)
    assert got["did"] is None and got["control"] is None and "No comparison group" in got["statement"]


def test_another_tenant_cannot_measure_it(world):
    ident = plan(world, {"serviceLine": "evaluation_management"})
    other = world.as_tenant(world.add_tenant("evidence intruder"))
    got = other.rpc.mutation("evidence.calculateForIntervention", {"interventionId": ident})
    assert got.code == "NOT_FOUND"
