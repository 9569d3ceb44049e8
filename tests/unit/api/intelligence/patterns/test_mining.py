"""Pattern mining against numbers worked out by hand, a planted pattern among noise, and invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from api.intelligence.patterns.mining import MAX_CELLS, Cell, mine, pattern_key

# --- the hand-computed fixture --------------------------------------------------------------------------
#
# Baseline: 100 denied of 1000 claims, p0 = 0.10.
#
# Cell A, 12 denied of 40. P(X >= 12 | n = 40, p = 0.1), summed term by term from the top of the tail:
#   P(X = 12) = C(40, 12) 0.1^12 0.9^28
#     C(40, 12) = 5,586,853,480;  0.9^28 = 0.9^20 * 0.9^8 = 0.1215767 * 0.4304672 = 0.0523348
#     P(X = 12) = 5,586,853,480e-12 * 0.0523348 = 0.00558685 * 0.0523348 = 2.92387e-4
#   each next term is the previous times (40 - i) / (i + 1) * (0.1 / 0.9):
#     P(13) = 2.92387e-4 * 28/13/9 (0.239316) = 6.99729e-5
#     P(14) = 6.99729e-5 * 27/14/9 (0.214286) = 1.49942e-5
#     P(15) = 1.49942e-5 * 26/15/9 (0.192593) = 2.88777e-6
#     P(16) = 2.88777e-6 * 25/16/9 (0.173611) = 5.01349e-7
#     P(17) = 5.01349e-7 * 24/17/9 (0.156863) = 7.86430e-8
#     P(18) = 7.86430e-8 * 23/18/9 (0.141975) = 1.11654e-8
#     P(19) = 1.11654e-8 * 22/19/9 (0.128655) = 1.43648e-9, and the rest adds < 2e-10
#   sum = 2.92387e-4 + 0.699729e-4 + 0.149942e-4 + 0.0288777e-4 + 0.00501349e-4 + 0.000786430e-4
#         + 0.000111654e-4 + 0.0000143648e-4 = 3.80834e-4  ->  p_A = 3.808e-4 (4 significant digits)
# Cells B and C (two payers), 2 denied of 4 each:
#   P(X >= 2 | 4, 0.1) = 1 - 0.9^4 - 4 * 0.1 * 0.9^3 = 1 - 0.6561 - 0.2916 = 0.0523
# Cell D, 1 of 1: below min_claims = 4, not tested, so m = 3 tests.
#
# Benjamini-Hochberg, m = 3, p sorted: p(1) = 3.80834e-4 (A), p(2) = p(3) = 0.0523 (B, C):
#   raw m p(i) / i:  3 * 3.80834e-4 / 1 = 1.14250e-3;  3 * 0.0523 / 2 = 0.07845;  3 * 0.0523 / 3 = 0.0523
#   step-up minimum from the largest rank down: q(3) = 0.0523; q(2) = min(0.07845, 0.0523) = 0.0523;
#   q(1) = min(1.14250e-3, 0.0523) = 1.14250e-3.
#
# Wilson 95% interval for A, p^ = 0.3, n = 40, z = 1.959964, z^2 = 3.841459:
#   denominator 1 + z^2/n = 1.0960365; centre = (0.3 + z^2/(2n)) / 1.0960365 = 0.3480182 / 1.0960365 = 0.3175245
#   half-width = z / 1.0960365 * sqrt(0.3 * 0.7 / 40 + z^2 / (4 n^2)) = 1.788230 * sqrt(0.00525 + 0.00060023)
#              = 1.788230 * 0.0764868 = 0.1367766  ->  [0.180748, 0.454301]
# Lift A = 0.3 / 0.1 = 3; its interval [1.80748, 4.54301]. Excess A = 12 - 40 * 0.1 = 8; B, C: 2 - 0.4 = 1.6.

P_A = 3.80834e-4
P_BC = 0.0523


def _hand_cells() -> list[Cell]:
    return [
        Cell("P1", "authorization", "197", None, None, claims=40, denied=12),
        Cell("P2", None, None, None, None, claims=4, denied=2),
        Cell("P3", None, None, None, None, claims=4, denied=2),
        Cell("P4", None, None, None, None, claims=1, denied=1),
    ]


def test_hand_fixture_p_values_q_values_and_intervals():
    patterns = mine(_hand_cells(), 1000, 100, min_claims=4, min_lift=1.5, fdr=0.06)

    by_payer = {p.cell.payer_key: p for p in patterns}
    assert set(by_payer) == {"P1", "P2", "P3"}  # P4 (1 claim) is never tested
    a = by_payer["P1"]
    assert a.p_value == pytest.approx(P_A, rel=1e-4)
    assert a.q_value == pytest.approx(1.14250e-3, rel=1e-4)
    assert a.rate == pytest.approx(0.3)
    assert (a.rate_low, a.rate_high) == pytest.approx((0.180748, 0.454301), abs=2e-6)
    assert a.lift == pytest.approx(3.0)
    assert (a.lift_low, a.lift_high) == pytest.approx((1.80748, 4.54301), abs=2e-5)
    assert a.excess_denials == pytest.approx(8.0)
    assert (a.claims, a.denied, a.baseline_claims, a.baseline_denied) == (40, 12, 1000, 100)
    assert a.baseline_rate == pytest.approx(0.1)
    for payer in ("P2", "P3"):
        assert by_payer[payer].p_value == pytest.approx(P_BC, rel=1e-9)
        assert by_payer[payer].q_value == pytest.approx(P_BC, rel=1e-9)
        assert by_payer[payer].excess_denials == pytest.approx(1.6)
    assert {p.tests_run for p in patterns} == {3}
    # largest excess first; the tie between B and C is broken by the key
    assert patterns[0] is a
    assert [p.pattern_key for p in patterns[1:]] == sorted(p.pattern_key for p in patterns[1:])


def test_hand_fixture_at_five_percent_keeps_only_cell_a():
    # q_B = q_C = 0.0523 > 0.05
    patterns = mine(_hand_cells(), 1000, 100, min_claims=4, fdr=0.05)
    assert [p.cell.payer_key for p in patterns] == ["P1"]


def test_p_value_is_scipys_exact_binomial_test():
    # The vectorised tail must be binomtest(k, n, p0, alternative="greater") exactly (a cross-check, not an
    # expected number: the expected numbers are the hand ones above).
    cells = [Cell(f"P{k}", None, None, None, None, claims=60, denied=k) for k in (12, 15, 20, 30, 60)]
    for pattern in mine(cells, 1000, 100, min_claims=30, min_lift=1.0, fdr=0.5):
        expected = binomtest(pattern.denied, pattern.claims, 0.1, alternative="greater").pvalue
        assert pattern.p_value == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_a_significant_cell_below_the_minimum_lift_is_not_a_pattern():
    # 1300 of 10,000 = 0.13 against 0.10: z = (1300 - 1000) / sqrt(10,000 * 0.09) = 300 / 30 = 10, so
    # p < 1e-20, but the lift 1.3 < 1.5 makes it too small to be worth a root-cause hunt.
    big = Cell("P1", None, None, None, None, claims=10_000, denied=1_300)
    assert mine([big], 100_000, 10_000, min_lift=1.5) == []
    assert [p.cell for p in mine([big], 100_000, 10_000, min_lift=1.25)] == [big]


def test_pattern_key_is_stable_and_tells_none_from_the_string_none():
    cell = Cell("P1", "authorization", None, "cardiology", None, claims=50, denied=20)
    same = Cell("P1", "authorization", None, "cardiology", None, claims=999, denied=0)
    other = Cell("P1", "authorization", "None", "cardiology", None, claims=50, denied=20)
    assert pattern_key(cell) == pattern_key(same)  # the counts are not part of the key
    assert pattern_key(cell) != pattern_key(other)
    assert len(pattern_key(cell)) == 16
    int(pattern_key(cell), 16)


def test_nothing_tested_returns_nothing():
    assert mine([Cell("P1", None, None, None, None, claims=10, denied=10)], 100, 10) == []
    assert mine([], 100, 10) == []


@pytest.mark.parametrize(
    ("cells", "baseline_claims", "baseline_denied", "options", "message"),
    [
        ([Cell("P1", None, None, None, None, 10, 11)], 100, 10, {}, "more denied"),
        ([Cell("P1", None, None, None, None, -1, 0)], 100, 10, {}, "negative"),
        ([Cell("P1", None, None, None, None, 10, -1)], 100, 10, {}, "negative"),
        ([], 0, 0, {}, "baseline_claims"),
        ([], -5, 0, {}, "baseline_claims"),
        ([], 100, 0, {}, "baseline_denied"),
        ([], 100, 101, {}, "baseline_denied"),
        ([], 100, 10, {"min_claims": 0}, "min_claims"),
        ([], 100, 10, {"min_lift": 0.0}, "min_lift"),
        ([], 100, 10, {"min_lift": float("nan")}, "min_lift"),
        ([], 100, 10, {"fdr": 0.0}, "fdr"),
        ([], 100, 10, {"fdr": 1.0}, "fdr"),
        ([Cell("P1", None, None, None, None, 40, 4)] * 2, 100, 10, {}, "twice"),
    ],
)
def test_bad_input_is_named(cells, baseline_claims, baseline_denied, options, message):
    with pytest.raises(ValueError, match=message):
        mine(cells, baseline_claims, baseline_denied, **options)


def test_more_cells_than_the_cap_is_refused():
    cells = [Cell("P1", None, None, None, None, 40, 4)] * (MAX_CELLS + 1)
    with pytest.raises(ValueError, match=f"at most {MAX_CELLS} cells"):
        mine(cells, 100, 10)


# --- a planted pattern among noise ---------------------------------------------------------------------
#
# The generator: 300 noise cells, each with n ~ Uniform{50..400} claims denied at the baseline rate 0.10,
# and one planted cell of 300 claims denied at 0.30 (3x). Binomial draws by inversion of the CDF from
# random.Random.random(), whose sequence for a given seed Python keeps stable across versions.

BASELINE_RATE = 0.10
NOISE_CELLS = 300


def _binomial(rng: random.Random, n: int, p: float) -> int:
    u = rng.random()
    k, pmf = 0, (1.0 - p) ** n
    cdf = pmf
    while u > cdf and k < n:
        pmf *= (n - k) / (k + 1) * p / (1.0 - p)
        k += 1
        cdf += pmf
    return k


def _world(seed: int) -> list[Cell]:
    rng = random.Random(seed)
    cells = []
    for i in range(NOISE_CELLS):
        n = rng.randint(50, 400)
        cells.append(Cell(f"NOISE{i:03d}", None, None, None, None, claims=n, denied=_binomial(rng, n, BASELINE_RATE)))
    cells.append(Cell("PLANTED", "authorization", "197", None, None, claims=300, denied=_binomial(rng, 300, 0.30)))
    return cells


def test_the_planted_cell_is_found_and_no_noise_cell_passes():
    # A regression check on one fixed world; the statistical claim is the replication test below (about
    # 9% of worlds hold one false discovery, which BH at 5% allows).
    patterns = mine(_world(1), 100_000, 10_000, fdr=0.05)
    assert [p.cell.payer_key for p in patterns] == ["PLANTED"]
    assert patterns[0].tests_run == NOISE_CELLS + 1
    assert patterns[0].lift_low > 2.0


def test_false_discoveries_stay_controlled_over_many_worlds():
    # 300 independent worlds. BH guarantees FDR = E[V / max(R, 1)] <= (m0 / m) * 0.05 = 300/301 * 0.05.
    # The planted cell is always found (its p is ~1e-20), so R = V + 1 and any false discovery makes
    # V / R >= 1/2: P(V >= 1) <= 2 * FDR <= 0.10. Monte Carlo tolerance: the FDP is 0 or ~1/2 here, its
    # standard deviation at most ~0.15, so its mean over 300 worlds has SE <= 0.009; +0.03 is > 3 SE.
    # For P(V >= 1), SE = sqrt(0.1 * 0.9 / 300) = 0.017; +0.05 is ~3 SE.
    worlds = 300
    found = 0
    false_discovery_proportions = []
    worlds_with_a_false_discovery = 0
    false_discoveries = 0
    for seed in range(worlds):
        patterns = mine(_world(seed), 100_000, 10_000, fdr=0.05)
        v = sum(p.cell.payer_key != "PLANTED" for p in patterns)
        found += any(p.cell.payer_key == "PLANTED" for p in patterns)
        false_discovery_proportions.append(v / max(len(patterns), 1))
        worlds_with_a_false_discovery += v > 0
        false_discoveries += v
    assert found == worlds
    assert sum(false_discovery_proportions) / worlds <= 0.05 + 0.03
    assert worlds_with_a_false_discovery / worlds <= 0.10 + 0.05
    # Unadjusted testing at 5% would flag about 300 * 0.05 = 15 noise cells per world (fewer after the
    # lift filter); BH keeps the expected number of false discoveries below one in five.
    assert false_discoveries / worlds <= 0.2


# --- invariants ------------------------------------------------------------------------------------------


@st.composite
def _cells_and_options(draw: st.DrawFn) -> tuple[list[Cell], int, int, int, float, float]:
    counts = draw(st.lists(st.tuples(st.integers(0, 300), st.floats(0, 1)), max_size=40))
    cells = [
        Cell(f"P{i}", None, None, None, None, claims=n, denied=round(n * share)) for i, (n, share) in enumerate(counts)
    ]
    baseline_claims = draw(st.integers(1, 100_000))
    baseline_denied = draw(st.integers(1, baseline_claims))
    min_claims = draw(st.integers(1, 100))
    min_lift = draw(st.floats(0.1, 3.0))
    fdr = draw(st.floats(0.001, 0.5))
    return cells, baseline_claims, baseline_denied, min_claims, min_lift, fdr


@given(_cells_and_options())
def test_invariants(case):
    cells, baseline_claims, baseline_denied, min_claims, min_lift, fdr = case
    patterns = mine(cells, baseline_claims, baseline_denied, min_claims=min_claims, min_lift=min_lift, fdr=fdr)
    tested = sum(cell.claims >= min_claims for cell in cells)
    baseline_rate = baseline_denied / baseline_claims
    for p in patterns:
        assert 0.0 <= p.p_value <= p.q_value <= 1.0
        assert p.q_value <= fdr
        assert p.claims >= min_claims
        assert p.rate >= min_lift * baseline_rate
        assert p.rate_low <= p.rate <= p.rate_high
        assert p.tests_run == tested
    assert [(-p.excess_denials, p.pattern_key) for p in patterns] == sorted(
        (-p.excess_denials, p.pattern_key) for p in patterns
    )


def test_a_carc_cell_is_compared_with_the_clients_rate_of_that_carc():
    # The client: 1,000 claims, 150 denied (15 %), 20 of them CO-197 (2 %). One payer denies 13 of its 100
    # radiology claims CO-197: 13 % is below the 15 % of denials of any kind, and 6.5 x the client's CARC 197.
    cell = Cell("MEDICARE", "authorization", "197", "radiology", None, claims=100, denied=13)
    assert mine([cell], 1000, 150, min_claims=30) == []  # against any denial: 0.13 < 1.5 x 0.15
    (found,) = mine([cell], 1000, 150, min_claims=30, level_baselines={("authorization", "197"): (1000, 20)})
    assert (found.baseline_claims, found.baseline_denied) == (1000, 20)
    assert found.baseline_rate == pytest.approx(0.02)
    assert found.lift == pytest.approx(6.5)  # 0.13 / 0.02
    assert found.excess_denials == pytest.approx(11.0)  # 13 - 100 x 0.02
    # one cell tested: q = p = P(X >= 13 | Bin(100, 0.02)), scipy's exact test as the independent check
    assert found.p_value == pytest.approx(binomtest(13, 100, 0.02, alternative="greater").pvalue, rel=1e-9)
    assert found.q_value == pytest.approx(found.p_value)


def test_a_cell_without_its_levels_baseline_or_with_an_impossible_one_is_refused():
    cell = Cell("MEDICARE", "authorization", "197", None, None, claims=100, denied=13)
    with pytest.raises(ValueError, match="no baseline for its denial level"):
        mine([cell], 1000, 150, level_baselines={("authorization", None): (1000, 30)})
    with pytest.raises(ValueError, match="denial level"):
        mine([cell], 1000, 150, level_baselines={("authorization", "197"): (1000, 0)})
