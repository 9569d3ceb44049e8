"""patterns.* on hand-written remittances: the five radar months of `RADAR PAYER` (20 claims a month,
denied 4, 4, 4, 5 then 14, all with CO-50 as the largest denial: medical necessity) and
`patterns_clean_may.835` (`PATTERN CLEAN PAYER`, May 2026: 20 claims, one denied CO-16: missing
information). Payment dates 2026-01-15 .. 2026-05-15 and 2026-05-18, so the adjudication months are
January to May 2026. There is no 837: every claim's service line and facility is 'unknown'.

Every expected figure is worked out by hand from the segments (tests/fixtures/x12/hand/README.md).

The cells of a window: slices are every subset of (payer, service line, facility), so 2 payers x 4
subsets of (service line, facility) = 8 one-payer slices plus 4 all-payer slices; each slice has its
any-denial cell and one cell per category and per category + CARC it denied:
  RADAR slice: any (k=radar's), medical_necessity, medical_necessity + 50        -> 3 cells x 4 slices
  CLEAN slice: any (k=1), missing_information, missing_information + 16          -> 3 cells x 4 slices
  all-payer slice: any, medical_necessity, + 50, missing_information, + 16       -> 5 cells x 4 slices
less the five all-payer, all-(service line, facility) cells, which are the baselines of their denial
levels (any denial, each category, each category + CARC): 12 + 12 + 20 - 5 = 39 cells. Each cell is
compared with its own level's baseline (mining.py).
"""

from __future__ import annotations

import itertools
from math import comb, sqrt

import pytest

from tests.support.hand_world import HandWorld, before_shared_run

pytestmark = pytest.mark.slow

RADAR = "RADAR PAYER"
CLEAN = "PATTERN CLEAN PAYER"
FILES = [*(f"radar_month{m}.835" for m in range(1, 6)), "patterns_clean_may.835"]
MAY = {"fromMonth": "2026-05", "toMonth": "2026-05", "minClaims": 20}
CELLS = 39  # see the module docstring

# May alone: baseline n = 20 + 20 = 40 claims, k = 14 + 1 = 15 denied, p0 = 15/40 = 0.375; medical
# necessity (every one CO-50) 14 of 40, p0 = 0.35; missing information (CO-16) 1 of 40.
# RADAR PAYER's any-denial cells: n = 20, k = 14, rate 0.7, lift 0.7/0.375; excess 14 - 20 x 0.375 = 6.5.
P0 = 15 / 40
P_RADAR = sum(comb(20, i) * P0**i * (1 - P0) ** (20 - i) for i in range(14, 21))  # P(X >= 14), 0.003246...
# Its medical necessity (and + CO-50) cells: the same 14 of 20 against 0.35: P(X >= 14), 0.001521...
P_MN = sum(comb(20, i) * 0.35**i * 0.65 ** (20 - i) for i in range(14, 21))
# BH over the 39 cells: the 8 medical necessity cells have the smallest p (ranks 1..8), q = p x 39 / 8 =
# 0.007413...; the 4 any-denial cells come next (ranks 9..12), q = p x 39 / 12 = 0.01055... Every other
# cell has a larger p: CLEAN's missing information, 1 of 20 against 1/40, P(X >= 1) = 1 - 0.975^20 = 0.397.
Q_MN = P_MN * CELLS / 8
Q_RADAR = P_RADAR * CELLS / 12
Z = 1.959963984540054  # the 97.5% normal quantile


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval (Wilson 1927), written out."""
    p = k / n
    centre = p + Z**2 / (2 * n)
    half = Z * sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return (centre - half) / (1 + Z**2 / n), (centre + half) / (1 + Z**2 / n)


@before_shared_run
def patterns_setup(hand_world: HandWorld) -> None:
    batches = hand_world.post(*FILES)
    assert [b["status"] for b in batches] == ["confirmed"] * len(FILES), batches


@pytest.fixture(scope="module")
def world(shared_hand_world):
    hand_world, _ = shared_hand_world.of(patterns_setup)
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    return hand_world


def dims(item: dict) -> tuple:
    return (item["payerKey"], item["category"], item["carc"], item["serviceLine"], item["facility"])


def test_the_mart_holds_the_claims_by_cell(world):
    rows = world.marts(
        "select payer_key, cast(adjudication_month as varchar), denial_category, carc, claims"
        " from fct_denial_cells_monthly where adjudication_month >= '2026-05-01' order by all"
    )
    assert rows == [
        (CLEAN, "2026-05-01", "missing_information", "16", 1),
        (CLEAN, "2026-05-01", "none", "NONE", 19),
        (RADAR, "2026-05-01", "medical_necessity", "50", 14),
        (RADAR, "2026-05-01", "none", "NONE", 6),
    ]


def test_the_default_window_is_the_last_three_months_and_the_search_is_answered_without_patterns(world):
    # March to May: RADAR 4 + 5 + 14 = 23 of 60, CLEAN 1 of 20: baseline 24 of 80 = 0.3. RADAR's rate
    # 23/60 = 0.383 is a lift of 1.28, under the default 1.5, and against medical necessity's 23/80 = 0.2875
    # a lift of 1.33: no pattern. CLEAN's 1 of 20 against missing information's 1/80 is a lift of 4, with
    # p = 1 - (79/80)^20 = 0.222: no pattern.
    out = world.rpc.query("patterns.list", {"minClaims": 20}).data
    assert out["items"] == [] and out["nextCursor"] is None
    search = out["search"]
    assert search["window"] == {"fromMonth": "2026-03", "toMonth": "2026-05"}
    assert search["baseline"] == {"claims": 80, "denied": 24, "rate": pytest.approx(0.3)}
    assert (search["cellsBuilt"], search["testsRun"]) == (CELLS, CELLS)
    assert (search["minLift"], search["fdr"]) == (1.5, 0.05)
    assert out["snapshot"]["builtAt"]
    # the default minClaims (30) leaves out CLEAN's 12 cells of 20 claims: 39 - 12 = 27 tested
    assert world.rpc.query("patterns.list", {}).data["search"]["testsRun"] == 27


def test_may_radar_payer_is_a_pattern_in_every_cell_that_names_it(world):
    items = world.pages("patterns.list", MAY)
    expected = {
        (RADAR, category, carc, line, facility)
        for (category, carc), (line, facility) in itertools.product(
            [(None, None), ("medical_necessity", None), ("medical_necessity", "50")],
            [(None, None), ("unknown", None), (None, "unknown"), ("unknown", "unknown")],
        )
    }
    assert {dims(i) for i in items} == expected and len(items) == 12
    (whole,) = [i for i in items if dims(i) == (RADAR, None, None, None, None)]
    low, high = wilson(14, 20)
    assert (whole["claims"], whole["denied"]) == (20, 14)
    assert whole["rate"] == pytest.approx(0.7)
    assert (whole["rateLow"], whole["rateHigh"]) == (pytest.approx(low), pytest.approx(high))
    assert (whole["baselineClaims"], whole["baselineDenied"]) == (40, 15)
    assert whole["baselineRate"] == pytest.approx(0.375)
    assert whole["lift"] == pytest.approx(0.7 / 0.375)
    assert (whole["liftLow"], whole["liftHigh"]) == (pytest.approx(low / 0.375), pytest.approx(high / 0.375))
    assert whole["excessDenials"] == pytest.approx(6.5)
    assert whole["pValue"] == pytest.approx(P_RADAR, rel=1e-9)
    assert whole["qValue"] == pytest.approx(Q_RADAR, rel=1e-9)
    assert whole["testsRun"] == CELLS and whole["confirmed"] is False


def test_filters_narrow_the_answer_and_never_the_cells_tested(world):
    necessity = world.pages("patterns.list", {**MAY, "category": "medical_necessity"})
    assert len(necessity) == 8 and [i["qValue"] for i in necessity] == [pytest.approx(Q_MN, rel=1e-9)] * 8
    assert {(i["baselineClaims"], i["baselineDenied"]) for i in necessity} == {(40, 14)}  # the category's
    lines = world.pages("patterns.list", {**MAY, "serviceLine": "unknown", "facility": "unknown"})
    assert len(lines) == 3
    assert world.pages("patterns.list", {**MAY, "payerKey": CLEAN.lower()}) == []
    assert len(world.pages("patterns.list", {**MAY, "payerKey": RADAR.lower()})) == 12
    page = world.rpc.query("patterns.list", {**MAY, "limit": 5}).data
    assert len(page["items"]) == 5 and page["nextCursor"] and page["search"]["testsRun"] == CELLS


def test_get_confirm_once_and_the_work_item_on_it(world):
    items = world.pages("patterns.list", MAY)
    key = next(i["patternKey"] for i in items if dims(i) == (RADAR, None, None, None, None))
    got = world.rpc.query("patterns.get", {**MAY, "patternKey": key}).data
    assert got["pattern"]["denied"] == 14 and got["search"]["window"]["fromMonth"] == "2026-05"
    # in the default window (March to May) the same cell is 23 of 60: not a pattern there
    missing = world.rpc.query("patterns.get", {"patternKey": key, "minClaims": 20})
    assert missing.code == "NOT_FOUND" and "not a pattern in that window" in missing.error["message"]
    assert world.rpc.mutation("patterns.confirm", {"patternKey": key, "minClaims": 20}).code == "NOT_FOUND"

    confirmed = world.rpc.mutation("patterns.confirm", {**MAY, "patternKey": key, "note": "auth desk"}).data
    assert (confirmed["patternKey"], confirmed["payerKey"], confirmed["category"]) == (key, RADAR, None)
    assert (confirmed["fromMonth"], confirmed["toMonth"], confirmed["claims"], confirmed["denied"]) == (
        "2026-05",
        "2026-05",
        20,
        14,
    )
    assert confirmed["qValue"] == pytest.approx(Q_RADAR, rel=1e-9) and confirmed["note"] == "auth desk"
    again = world.rpc.mutation("patterns.confirm", {**MAY, "patternKey": key})
    assert again.code == "CONFLICT"
    listed = {i["patternKey"]: i for i in world.pages("patterns.list", MAY)}
    assert listed[key]["confirmed"] is True and listed[key]["confirmedAt"]
    assert sum(i["confirmed"] for i in listed.values()) == 1

    user_id = world.rpc.query("auth.session").data["userId"]
    body = {"patternKey": key, "title": "Medical necessity review", "ownerUserId": user_id}
    item = world.rpc.mutation("preventionFactory.create", body).data
    assert (item["state"], item["confirmedPatternId"]) == ("open", confirmed["id"])


def test_another_tenant_gets_nothing_of_this_one(world):
    key = next(i["patternKey"] for i in world.pages("patterns.list", MAY))
    other = world.as_tenant(world.add_tenant("Patterns other"))
    assert other.rpc.query("patterns.get", {**MAY, "patternKey": key}).code == "NOT_FOUND"
    assert other.rpc.mutation("patterns.confirm", {**MAY, "patternKey": key}).code == "NOT_FOUND"
    body = {"patternKey": key, "title": "x", "ownerUserId": other.rpc.query("auth.session").data["userId"]}
    assert other.rpc.mutation("preventionFactory.create", body).code == "NOT_FOUND"
    empty = other.rpc.query("patterns.list", {}).data
    assert empty["items"] == [] and empty["search"]["window"] is None and empty["search"]["testsRun"] == 0


@pytest.mark.parametrize(
    "bad",
    [
        {"fromMonth": "2026-13"},
        {"toMonth": "May 2026"},
        {"fromMonth": "2026-05", "toMonth": "2026-04"},
        {"fdr": 0.6},
        {"fdr": 0},
        {"minClaims": 0},
        {"minLift": 0.5},
        {"limit": 501},
        {"cursor": "not-a-cursor"},
    ],
)
def test_bad_inputs_are_bad_requests(world, bad):
    assert world.rpc.query("patterns.list", bad).code == "BAD_REQUEST", bad


def test_bad_pattern_keys_are_bad_requests(world):
    assert world.rpc.query("patterns.get", {"patternKey": "ZZ"}).code == "BAD_REQUEST"
    assert world.rpc.mutation("patterns.confirm", {"patternKey": "0" * 16, "fromMonth": "2026-00"}).code == (
        "BAD_REQUEST"
    )
