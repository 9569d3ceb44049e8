"""Rates, before/after and difference-in-differences: hand-computed fixtures and properties.

Every expected number below is worked out on paper in the comments (z = 1.959964 for 95%), never by
calling the code under test or the library routine it uses.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from api.evidence.evidence.estimators import before_after, difference_in_differences, rate

# Wilson (1927) interval, by hand, for n = 200, z = 1.959964, z^2 = 3.841459:
#   z^2/n = 0.01920730, z^2/(2n) = 0.00960365, z^2/(4n^2) = 0.0000240091, 1 + z^2/n = 1.0192073
#   centre = (p + z^2/(2n)) / (1 + z^2/n);  half = z * sqrt(p(1-p)/n + z^2/(4n^2)) / (1 + z^2/n)
# 60/200, p = 0.30:
#   centre = 0.30960365 / 1.0192073 = 0.30376906
#   p(1-p)/n = 0.21/200 = 0.00105; + 0.0000240091 = 0.0010740091; sqrt = 0.03277208
#   half = 1.959964 * 0.03277208 / 1.0192073 = 0.06423209 / 1.0192073 = 0.06302162
#   interval 0.30376906 ± 0.06302162 = (0.24074744, 0.36679068)
# 30/200, p = 0.15:
#   centre = 0.15960365 / 1.0192073 = 0.15659587
#   p(1-p)/n = 0.1275/200 = 0.0006375; + 0.0000240091 = 0.0006615091; sqrt = 0.02571982
#   half = 1.959964 * 0.02571982 / 1.0192073 = 0.05040992 / 1.0192073 = 0.04945993
#   interval 0.15659587 ± 0.04945993 = (0.10713594, 0.20605580)


def test_rate_wilson_by_hand():
    r = rate(60, 200)
    assert (r.events, r.trials, r.rate, r.reason) == (60, 200, 0.30, None)
    assert r.ci_low == pytest.approx(0.24074744, abs=1e-6)
    assert r.ci_high == pytest.approx(0.36679068, abs=1e-6)


def test_rate_without_trials_is_none_with_a_reason():
    r = rate(0, 0)
    assert (r.rate, r.ci_low, r.ci_high) == (None, None, None)
    assert r.reason is not None and "no trials" in r.reason


@pytest.mark.parametrize(("events", "trials"), [(3, 2), (-1, 5), (0, -1), (True, 5), (1.0, 5)])
def test_rate_rejects_impossible_counts(events, trials):
    with pytest.raises(ValueError):
        rate(events, trials)


def test_before_after_newcombe_by_hand():
    # before 60/200 (0.30), after 30/200 (0.15); d = after - before = -0.15.
    # Newcombe (1998) method 10, with (l, u) the Wilson intervals above:
    #   lower = d - sqrt((p_a - l_a)^2 + (u_b - p_b)^2)
    #         = -0.15 - sqrt((0.15 - 0.10713594)^2 + (0.36679068 - 0.30)^2)
    #         = -0.15 - sqrt(0.04286406^2 + 0.06679068^2) = -0.15 - sqrt(0.0018373276 + 0.0044609949)
    #         = -0.15 - sqrt(0.0062983225) = -0.15 - 0.07936197 = -0.22936197
    #   upper = d + sqrt((u_a - p_a)^2 + (p_b - l_b)^2)
    #         = -0.15 + sqrt((0.20605580 - 0.15)^2 + (0.30 - 0.24074744)^2)
    #         = -0.15 + sqrt(0.0560558^2 + 0.05925256^2) = -0.15 + sqrt(0.0031422527 + 0.0035108659)
    #         = -0.15 + sqrt(0.0066531186) = -0.15 + 0.08156665 = -0.06843335
    c = before_after((60, 200), (30, 200))
    assert c.difference == pytest.approx(-0.15, abs=1e-12)
    assert c.ci_low == pytest.approx(-0.2294, abs=5e-5)
    assert c.ci_high == pytest.approx(-0.0684, abs=5e-5)
    assert (c.n_before, c.n_after, c.reason) == (200, 200, None)
    assert c.before.ci_low == pytest.approx(0.2407, abs=5e-5)
    assert c.after.ci_high == pytest.approx(0.2061, abs=5e-5)


def test_before_after_with_an_empty_period():
    c = before_after((0, 0), (3, 10))
    assert (c.difference, c.ci_low, c.ci_high) == (None, None, None)
    assert c.reason is not None and "before" in c.reason
    assert c.after.rate == 0.3


def test_difference_in_differences_by_hand():
    # treated before 60/200 = 0.30, after 30/200 = 0.15  -> change -0.15
    # control before 50/200 = 0.25, after 48/200 = 0.24  -> change -0.01
    # estimate = -0.15 - (-0.01) = -0.14
    # variance terms p(1-p)/n:
    #   0.30*0.70/200 = 0.21/200   = 0.00105
    #   0.15*0.85/200 = 0.1275/200 = 0.0006375
    #   0.25*0.75/200 = 0.1875/200 = 0.0009375
    #   0.24*0.76/200 = 0.1824/200 = 0.000912
    #   sum = 0.003537
    # SE = sqrt(0.003537): 0.059473^2 = 0.0035370377, too high by 3.77e-8; minus 3.77e-8/0.118946 = 3.17e-7
    #   -> SE = 0.0594727
    # half-width = 1.959964 * 0.0594727 = 0.1165643 -> interval (-0.2565643, -0.0234357)
    # z = -0.14 / 0.0594727 = -2.35402
    # p = 2 * Q(2.35402); from a normal table Q(2.35) = 0.0093867, phi(2.35) = 0.0252185, h = 0.00402:
    #   Q(2.35402) = 0.0093867 - 0.0252185*0.00402 + 0.5*2.35*0.0252185*0.00402^2 = 0.0092858 -> p = 0.01857
    d = difference_in_differences((60, 200), (30, 200), (50, 200), (48, 200))
    assert d.estimate == pytest.approx(-0.14, abs=1e-12)
    assert d.standard_error == pytest.approx(0.0595, abs=5e-5)
    assert d.standard_error == pytest.approx(0.0594727, abs=1e-7)
    assert d.ci_low == pytest.approx(-0.2566, abs=5e-5)
    assert d.ci_high == pytest.approx(-0.0234, abs=5e-5)
    assert d.z == pytest.approx(-2.3540, abs=5e-5)
    assert d.p_value == pytest.approx(0.0186, abs=5e-5)
    assert d.significant and d.enough_trials
    assert d.n_total == 800
    assert (d.treated_before.rate, d.treated_after.rate, d.control_before.rate, d.control_after.rate) == (
        0.30,
        0.15,
        0.25,
        0.24,
    )
    assert "ended 14.0 percentage points lower" in d.statement
    assert "-25.7 to -2.3 points" in d.statement
    assert "parallel" in d.statement


def test_interval_covering_zero_is_not_distinguishable_from_no_effect():
    # treated 60/200 -> 54/200 (-0.03), control 50/200 -> 48/200 (-0.01): estimate -0.02, SE about 0.06.
    d = difference_in_differences((60, 200), (54, 200), (50, 200), (48, 200))
    assert d.ci_low is not None and d.ci_high is not None
    assert d.ci_low < 0 < d.ci_high
    assert not d.significant
    assert "not distinguishable from no effect" in d.statement
    assert "parallel" in d.statement


def test_zero_variance_cells_get_the_continuity_correction():
    # Every cell 0/40: observed p(1-p)/n = 0 would give SE 0. Corrected p = (0 + 0.5)/(40 + 1) = 1/82:
    #   p(1-p)/n = (1/82)(81/82)/40 = 81/268960 = 0.00030116 per cell; four cells: 81/67240 = 0.00120464
    #   SE = sqrt(0.00120464) = 0.0347079 (0.0347^2 = 0.00120409; + 0.00000055/0.0694 = 0.0000079)
    # The estimate stays on the observed rates: 0.
    d = difference_in_differences((0, 40), (0, 40), (0, 40), (0, 40))
    assert d.estimate == 0
    assert d.standard_error == pytest.approx(0.0347, abs=5e-5)
    assert not d.significant
    # All 40/40 is the mirror image: corrected p = 40.5/41 = 81/82, the same variance.
    ones = difference_in_differences((40, 40), (40, 40), (40, 40), (40, 40))
    assert ones.standard_error == pytest.approx(0.0347, abs=5e-5)


def test_too_few_claims_to_say():
    d = difference_in_differences((2, 10), (9, 10), (50, 200), (48, 200))
    assert not d.enough_trials
    assert not d.significant  # p alone would be below 0.05, but 10 claims a cell is too few to trust it
    assert d.estimate is not None and d.ci_low is not None
    assert d.statement.startswith("Too few claims to say")
    assert "treated before (10)" in d.statement and "parallel" in d.statement


def test_an_empty_cell_gives_no_estimate():
    d = difference_in_differences((2, 10), (0, 0), (50, 200), (48, 200))
    assert (d.estimate, d.standard_error, d.ci_low, d.ci_high, d.z, d.p_value) == (None,) * 6
    assert not d.significant
    assert "treated after" in d.statement and "parallel" in d.statement
    assert d.n_total == 410


@pytest.mark.parametrize("bad", [0, -5, True])
def test_min_trials_must_be_positive(bad):
    with pytest.raises(ValueError, match="min_trials"):
        difference_in_differences((1, 2), (1, 2), (1, 2), (1, 2), min_trials=bad)


def test_counts_must_be_pairs():
    with pytest.raises(ValueError, match="treated_before"):
        difference_in_differences((1, 2, 3), (1, 2), (1, 2), (1, 2))  # type: ignore[arg-type]


cells = st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@given(cells, cells, cells, cells)
def test_swapping_treated_and_control_negates_the_estimate(tb, ta, cb, ca):
    d = difference_in_differences(tb, ta, cb, ca)
    s = difference_in_differences(cb, ca, tb, ta)
    assert s.estimate == -d.estimate
    assert s.standard_error == pytest.approx(d.standard_error, rel=1e-12)
    assert s.ci_low == pytest.approx(-d.ci_high, rel=1e-9, abs=1e-12)
    assert s.p_value == pytest.approx(d.p_value, rel=1e-9, abs=1e-15)


@given(cells, cells)
def test_identical_treated_and_control_give_zero(before, after):
    d = difference_in_differences(before, after, before, after)
    assert d.estimate == 0
    assert d.ci_low < 0 < d.ci_high
    assert not d.significant


@given(cells, cells, cells, cells)
def test_the_interval_contains_the_estimate(tb, ta, cb, ca):
    d = difference_in_differences(tb, ta, cb, ca)
    assert d.standard_error > 0
    assert d.ci_low <= d.estimate <= d.ci_high
    assert d.significant == (d.enough_trials and not d.ci_low <= 0 <= d.ci_high)


@given(cells, cells)
@example((0, 7), (7, 7))  # statsmodels' sum of roots gives 1.0000000000000002 here: the bound is clamped
def test_before_after_interval_contains_the_difference(before, after):
    c = before_after(before, after)
    assert -1 <= c.ci_low <= c.difference <= c.ci_high <= 1


def test_the_written_out_critical_value_is_scipys():
    # Z_CRIT is a literal so that importing the API does not import scipy.stats; scipy is the outside judge.
    from scipy.stats import norm

    from api.evidence.evidence.estimators import ALPHA, Z_CRIT

    assert float(norm.isf(ALPHA / 2)) == pytest.approx(Z_CRIT, abs=1e-15)


@given(st.floats(min_value=-40, max_value=40, allow_nan=False))
def test_the_two_sided_p_value_is_scipys(z):
    from scipy.stats import norm

    from api.evidence.evidence.estimators import two_sided_p

    assert two_sided_p(z) == pytest.approx(float(2 * norm.sf(abs(z))), rel=1e-12, abs=1e-300)
