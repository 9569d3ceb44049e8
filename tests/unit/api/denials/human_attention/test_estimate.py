"""The hierarchical Beta-binomial overturn estimate: hand-computed posteriors, properties, calibration."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.human_attention.estimate import DEFAULT_STRENGTH, LEVELS, Counts, fit, moment_strength
from tests.support.planted_outcomes import CARCS, PLANTED_RATES, cell_counts, planted_outcomes


def _fit(counts):
    return fit({cell: Counts(n, k) for cell, (n, k) in counts.items()})


def _params(estimate):
    return [(f.level, f.n, f.k, pytest.approx(f.alpha), pytest.approx(f.beta)) for f in estimate.levels]


def test_no_outcomes_at_all_is_the_uniform_prior_everywhere():
    e = _fit({}).estimate("ACME", "coding", "16")
    assert _params(e) == [(level, 0, 0, 1.0, 1.0) for level in LEVELS]
    assert e.mean == 0.5 and e.basis.level == "global"
    assert e.interval() == (pytest.approx(0.025), pytest.approx(0.975))


def test_one_cell_every_level_is_the_global_posterior():
    """3 decided, 2 overturned: global Beta(1 + 2, 1 + 1) = Beta(3, 2). One category cell (< 3 cells: the
    default strength 20), its parent without its own outcomes is Beta(1, 1): mean 0.5, ceiling 2, so the
    prior is Beta(1, 1) and the posterior Beta(3, 2) again; likewise below."""
    e = _fit({("ACME", "coding", "16"): (3, 2)}).estimate("ACME", "coding", "16")
    assert _params(e) == [(level, 3, 2, 3.0, 2.0) for level in LEVELS]
    assert e.mean == pytest.approx(0.6) and e.basis.level == "payer_category_carc"
    assert e.levels[1].prior_strength == pytest.approx(2.0)


def test_three_categories_method_of_moments_by_hand():
    """Categories a, b, c with 8/10, 2/10, 5/10 overturned. Global Beta(16, 16).
    Parents without each cell: a (8, 14) m = 4/11, b (14, 8) m = 7/11, c (11, 11) m = 1/2.
    spread = ((0.8 - 4/11)^2 + (0.2 - 7/11)^2 + 0) / 3 = 0.1269421
    noise = (2 x (4/11)(7/11)/10 + 0.25/10) / 3 = 0.0237603
    s = mean m(1-m) / (spread - noise) - 1 = 0.2376033 / 0.1031818 - 1 = 1.3027
    a: floor 1/m = 2.75 > 1.3027, so s = 2.75: Beta(2.75 x 4/11 + 8, 2.75 x 7/11 + 2) = Beta(9, 3.75)
    c: floor 2: Beta(1 + 5, 1 + 5) = Beta(6, 6)."""
    model = _fit({("P", "a", "1"): (10, 8), ("P", "b", "1"): (10, 2), ("P", "c", "1"): (10, 5)})
    assert model.strengths["category"] == pytest.approx(1.3027, abs=1e-4)
    a = model.estimate("P", "a", "1").levels[1]
    assert (a.alpha, a.beta, a.prior_strength) == (pytest.approx(9.0), pytest.approx(3.75), pytest.approx(2.75))
    assert a.mean == pytest.approx(9 / 12.75)
    c = model.estimate("P", "c", "1").levels[1]
    assert (c.alpha, c.beta) == (pytest.approx(6.0), pytest.approx(6.0))


def test_moment_strength_by_hand():
    # spread (0.04 + 0.04 + 0) / 3, noise 0.25 / 100: s = 0.25 / (0.08/3 - 0.0025) - 1 = 9.344828
    assert moment_strength([(100, 70, 0.5), (100, 30, 0.5), (100, 50, 0.5)]) == pytest.approx(9.344828, abs=1e-6)
    assert moment_strength([(100, 50, 0.5)] * 3) == math.inf  # no more spread than noise: pool fully
    assert moment_strength([(100, 70, 0.5), (100, 30, 0.5)]) == DEFAULT_STRENGTH  # too few cells
    assert moment_strength([(0, 0, 0.5)] * 5) == DEFAULT_STRENGTH  # cells without data say nothing


def test_a_thin_cell_borrows_from_its_parent_and_a_thick_one_speaks_for_itself():
    counts = {("P", "coding", c): (200, 60) for c in ("1", "2", "3")}
    model = _fit({**counts, ("P", "coding", "4"): (2, 2), ("P", "coding", "5"): (400, 360)})
    thin, thick = model.estimate("P", "coding", "4"), model.estimate("P", "coding", "5")
    parent = thin.levels[2].mean
    assert abs(thin.mean - parent) < abs(1.0 - parent) / 2  # 2 of 2 overturned barely moves it
    assert thick.mean == pytest.approx(0.9, abs=0.02)


cells = st.tuples(st.sampled_from(["P1", "P2", "P3"]), st.sampled_from(["a", "b", "c"]), st.sampled_from(["1", "2"]))
worlds = st.dictionaries(cells, st.integers(0, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))


@given(worlds, cells)
def test_every_estimate_is_a_probability_inside_its_interval(world, cell):
    model = _fit(world)
    e = model.estimate(*cell)
    low, high = e.interval()
    assert 0.0 <= low <= e.mean <= high <= 1.0
    for level in e.levels:
        assert level.alpha >= 1.0 - 1e-9 and level.beta >= 1.0 - 1e-9


@given(worlds, cells)
def test_an_empty_cell_has_its_parents_estimate(world, cell):
    payer, category, _ = cell
    e = _fit(world).estimate(payer, category, "never-seen")
    assert e.mean == pytest.approx(e.levels[2].mean, abs=1e-12)
    assert e.posterior.n == 0 and e.basis.level != "payer_category_carc"
    unseen_category = _fit(world).estimate(payer, "never-seen", "x")
    assert unseen_category.mean == pytest.approx(unseen_category.levels[0].mean, abs=1e-12)


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_more_data_narrows_the_interval(counts):
    n, k = counts
    few = _fit({("P", "a", "1"): (n, k)}).estimate("P", "a", "1")
    many = _fit({("P", "a", "1"): (4 * n, 4 * k)}).estimate("P", "a", "1")
    (lo1, hi1), (lo2, hi2) = few.interval(), many.interval()
    assert hi2 - lo2 < hi1 - lo1


def test_calibration_on_planted_rates():
    """Five planted corpora (6 payers x 4 categories, 150-400 decisions per cell): at least 90 % of the
    95 % intervals of the cells the worklist uses (payer x category x CARC) contain the planted rate."""
    covered = total = 0
    for seed in (11, 12, 13, 14, 15):
        model = _fit(cell_counts(planted_outcomes(seed)))
        for (payer, category), rate in PLANTED_RATES.items():
            for carc in CARCS[category]:
                e = model.estimate(payer, category, carc)
                low, high = e.interval()
                assert low <= e.mean <= high
                covered += low <= rate <= high
                total += 1
    assert total == 5 * 6 * sum(len(c) for c in CARCS.values())
    assert covered / total >= 0.90, f"{covered} of {total}"
