"""Fixed- and random-effects pooling: hand-computed fixtures, edge cases and properties.

Expected numbers are worked out on paper in the comments (z = 1.959964 for 95%), never by calling the
code under test or statsmodels.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.evidence.evidence_synthesis.pooling import MAX_STUDIES, Study, pool


def test_two_studies_by_hand():
    # Studies: 0.10 (SE 0.05, variance 0.0025) and 0.30 (SE 0.10, variance 0.01).
    # Fixed effect: weights 1/0.0025 = 400 and 1/0.01 = 100, W = 500
    #   estimate = (400*0.10 + 100*0.30)/500 = 70/500 = 0.14
    #   SE = sqrt(1/500) = 0.0447214; half-width 1.959964*0.0447214 = 0.0876523 -> (0.0523477, 0.2276523)
    # Q = 400*(0.10-0.14)^2 + 100*(0.30-0.14)^2 = 400*0.0016 + 100*0.0256 = 0.64 + 2.56 = 3.2, df = 1
    #   p = P(chi2_1 > 3.2) = 2*Q_norm(sqrt 3.2 = 1.78885); table Q(1.78) = 0.037538, Q(1.79) = 0.036727:
    #   Q(1.78885) = 0.037538 - 0.885*0.000811 = 0.036820 -> p = 0.07364
    # C = 500 - (400^2 + 100^2)/500 = 500 - 170000/500 = 500 - 340 = 160
    # tau^2 = (3.2 - 1)/160 = 0.01375
    # Random effects: weights 1/(0.0025 + 0.01375) = 1/0.01625 = 800/13 = 61.538462
    #                         1/(0.01 + 0.01375)   = 1/0.02375 = 800/19 = 42.105263
    #   W* = 800*(19 + 13)/247 = 25600/247 = 103.643725
    #   sum w*e = 80/13 + 240/19 = (1520 + 3120)/247 = 4640/247 = 18.785425
    #   estimate = 4640/25600 = 0.18125
    #   SE = sqrt(247/25600) = sqrt(0.00964844) = 0.0982265
    #   half-width 1.959964*0.0982265 = 0.1925205 -> (-0.0112705, 0.3737705)
    # I^2 = (3.2 - 1)/3.2 = 0.6875
    p = pool([Study("a", 0.10, 0.05, 120), Study("b", 0.30, 0.10, 40)])
    assert p.fixed_effect == pytest.approx(0.1400, abs=5e-5)
    assert p.fixed_standard_error == pytest.approx(0.0447, abs=5e-5)
    assert p.fixed_ci_low == pytest.approx(0.0523, abs=5e-5)
    assert p.fixed_ci_high == pytest.approx(0.2277, abs=5e-5)
    assert p.q == pytest.approx(3.2000, abs=5e-5)
    assert p.q_df == 1
    assert p.q_p_value == pytest.approx(0.0736, abs=5e-5)
    assert p.tau2 == pytest.approx(0.01375, abs=5e-7)
    assert p.random_effect == pytest.approx(0.1813, abs=5e-5)
    assert p.random_effect == pytest.approx(0.18125, abs=1e-9)
    assert p.random_standard_error == pytest.approx(0.0982, abs=5e-5)
    assert p.random_ci_low == pytest.approx(-0.0113, abs=5e-5)
    assert p.random_ci_high == pytest.approx(0.3738, abs=5e-5)
    assert p.i2 == pytest.approx(0.6875, abs=5e-5)
    assert (p.n_studies, p.n_total) == (2, 160)
    assert p.statement.startswith("Moderate heterogeneity")
    assert "69%" in p.statement


def test_three_studies_with_q_below_df_have_tau2_zero():
    # Effects 0.10, 0.12, 0.11, all SE 0.1 (variance 0.01, weight 100), W = 300.
    # Fixed = (10 + 12 + 11)/300 = 33/300 = 0.11; SE = sqrt(1/300) = 0.0577350
    #   half-width 1.959964*0.0577350 = 0.1131586 -> (-0.0031586, 0.2231586)
    # Q = 100*(0.01^2 + 0.01^2 + 0) = 0.02 < df = 2 -> tau^2 = 0 (truncated), I^2 = 0, random = fixed
    # p = P(chi2_2 > 0.02) = exp(-0.02/2) = exp(-0.01) = 0.9900498
    p = pool([Study("x", 0.10, 0.1, 50), Study("y", 0.12, 0.1, 60), Study("z", 0.11, 0.1, 70)])
    assert p.fixed_effect == pytest.approx(0.1100, abs=5e-5)
    assert p.fixed_standard_error == pytest.approx(0.0577, abs=5e-5)
    assert p.fixed_ci_low == pytest.approx(-0.0032, abs=5e-5)
    assert p.fixed_ci_high == pytest.approx(0.2232, abs=5e-5)
    assert p.q == pytest.approx(0.0200, abs=5e-5)
    assert p.q_df == 2
    assert p.q_p_value == pytest.approx(0.9900, abs=5e-5)
    assert p.tau2 == 0
    assert p.i2 == 0
    assert (p.random_effect, p.random_standard_error, p.random_ci_low, p.random_ci_high) == (
        p.fixed_effect,
        p.fixed_standard_error,
        p.fixed_ci_low,
        p.fixed_ci_high,
    )
    assert p.statement.startswith("No heterogeneity beyond chance")
    assert p.n_total == 180


def test_one_study_is_the_pooled_estimate():
    # 0.2 ± 1.959964*0.05 = 0.2 ± 0.0979982 -> (0.1020018, 0.2979982)
    p = pool([Study("only", 0.2, 0.05, 300)])
    assert (p.fixed_effect, p.random_effect) == (0.2, 0.2)
    assert (p.fixed_standard_error, p.random_standard_error) == (0.05, 0.05)
    assert p.fixed_ci_low == pytest.approx(0.1020, abs=5e-5)
    assert p.random_ci_high == pytest.approx(0.2980, abs=5e-5)
    assert (p.tau2, p.q, p.q_df, p.q_p_value, p.i2) == (None,) * 5
    assert "cannot be estimated" in p.statement
    assert (p.n_studies, p.n_total) == (1, 300)


def test_identical_effects_give_q_zero_without_warnings(recwarn):
    p = pool([Study("a", 0.3, 0.1, 10), Study("b", 0.3, 0.2, 10)])
    assert p.q == pytest.approx(0.0, abs=1e-12)
    assert (p.tau2, p.i2) == (0.0, 0.0)
    assert p.random_effect == pytest.approx(0.3)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize(
    ("effect", "se"), [(0.1, 0.0), (0.1, -0.05), (math.nan, 0.1), (0.1, math.nan), (math.inf, 0.1), (0.1, math.inf)]
)
def test_bad_study_values_raise(effect, se):
    with pytest.raises(ValueError, match="study 's'"):
        Study("s", effect, se, 10)


@pytest.mark.parametrize("n", [0, -1, True])
def test_study_n_must_be_a_positive_int(n):
    with pytest.raises(ValueError, match="n must be"):
        Study("s", 0.1, 0.1, n)


def test_no_studies_or_too_many_raise():
    with pytest.raises(ValueError, match="at least one"):
        pool([])
    with pytest.raises(ValueError, match=str(MAX_STUDIES)):
        pool([Study("s", 0.1, 0.1, 1)] * (MAX_STUDIES + 1))


def test_a_standard_error_whose_square_underflows_raises():
    with pytest.raises(ValueError, match="too small"):
        pool([Study("a", 0.1, 1e-170, 10), Study("b", 0.2, 0.1, 10)])


studies = st.lists(
    st.builds(
        Study,
        label=st.just("s"),
        effect=st.floats(-1, 1, allow_nan=False),
        standard_error=st.floats(0.001, 1),
        n=st.integers(1, 10_000),
    ),
    min_size=2,
    max_size=30,
)


@given(studies)
def test_pooled_properties(ss):
    p = pool(ss)
    lo, hi = min(s.effect for s in ss), max(s.effect for s in ss)
    # A weighted mean lies between the smallest and largest effect.
    assert lo - 1e-9 <= p.fixed_effect <= hi + 1e-9
    assert lo - 1e-9 <= p.random_effect <= hi + 1e-9
    assert p.fixed_ci_low <= p.fixed_effect <= p.fixed_ci_high
    assert p.random_ci_low <= p.random_effect <= p.random_ci_high
    # Random effects never claims more precision than fixed effect (tau^2 >= 0).
    assert p.tau2 is not None and p.tau2 >= 0
    assert p.random_standard_error >= p.fixed_standard_error * (1 - 1e-12)
    assert p.i2 is not None and 0 <= p.i2 < 1
    assert p.q_df == len(ss) - 1
    assert p.n_total == sum(s.n for s in ss)
