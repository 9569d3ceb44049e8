"""The change radar's statistics against values worked out by hand, and their invariants."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.payer_change_radar.queries import judge
from api.intelligence.payer_change_radar.statistics import (
    benjamini_hochberg,
    binomial_upper_tail,
    mean_increase_p_value,
    normal_upper_tail,
    rate_increase_p_value,
    regularized_incomplete_beta,
    student_t_upper_tail,
)

# --- binomial tails by hand -------------------------------------------------------------------------


def test_binomial_tail_of_four_fair_coins():
    # P(X >= 3), X ~ Bin(4, 1/2) = (C(4,3) + C(4,4)) / 16 = 5/16
    assert binomial_upper_tail(3, 4, 0.5) == pytest.approx(5 / 16, rel=1e-12)


def test_binomial_tail_of_three_trials_at_one_fifth():
    # P(X >= 2), X ~ Bin(3, 0.2) = 3 * 0.04 * 0.8 + 0.008 = 0.096 + 0.008 = 0.104
    assert binomial_upper_tail(2, 3, 0.2) == pytest.approx(0.104, rel=1e-12)


def test_binomial_tail_edges():
    assert binomial_upper_tail(0, 5, 0.3) == 1.0  # X >= 0 always
    assert binomial_upper_tail(6, 5, 0.3) == 0.0  # more successes than trials
    assert binomial_upper_tail(1, 5, 0.0) == 0.0
    assert binomial_upper_tail(5, 5, 1.0) == 1.0
    # all five: 0.3^5 = 0.00243
    assert binomial_upper_tail(5, 5, 0.3) == pytest.approx(0.00243, rel=1e-12)


def test_incomplete_beta_by_hand():
    # I_x(1, 1) = x; I_x(2, 1) = x^2; I_x(1, 2) = 1 - (1 - x)^2 = 0.75 at x = 0.5
    assert regularized_incomplete_beta(1, 1, 0.37) == pytest.approx(0.37, rel=1e-12)
    assert regularized_incomplete_beta(2, 1, 0.6) == pytest.approx(0.36, rel=1e-12)
    assert regularized_incomplete_beta(1, 2, 0.5) == pytest.approx(0.75, rel=1e-12)


def test_large_binomial_tail_uses_the_incomplete_beta_and_agrees_with_the_normal_mass():
    # Bin(10000, 1/2): P(X >= 5000) = 1/2 + P(X = 5000)/2 by symmetry;
    # P(X = 5000) ~ 1 / sqrt(pi * 5000) = 0.0079788... (Stirling), so the tail is ~0.50399
    assert binomial_upper_tail(5000, 10000, 0.5) == pytest.approx(0.5 + 0.5 / math.sqrt(math.pi * 5000), rel=1e-4)


def test_rate_increase_with_a_zero_baseline_is_finite():
    # k=6 of n=20 against K=0 of N=80: X ~ Bin(6, 20/100), P(X >= 6) = 0.2^6 = 0.000064
    assert rate_increase_p_value(6, 20, 0, 80) == pytest.approx(0.000064, rel=1e-12)


def test_rate_increase_of_one_extra_denial_is_not_significant():
    # 3 of 20 against 2 of 20 for three months (6 of 60): X ~ Bin(9, 0.25),
    # P(X >= 3) = 1 - 0.75^9 - 9 * 0.25 * 0.75^8 - 36 * 0.0625 * 0.75^7
    by_hand = 1 - 0.75**9 - 9 * 0.25 * 0.75**8 - 36 * 0.0625 * 0.75**7  # = 0.3993...
    assert rate_increase_p_value(3, 20, 6, 60) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand > 0.39


def test_rate_increase_rejects_impossible_inputs():
    with pytest.raises(ValueError):
        rate_increase_p_value(1, 0, 1, 10)
    with pytest.raises(ValueError):
        rate_increase_p_value(-1, 10, 1, 10)


def test_normal_tail():
    assert normal_upper_tail(0.0) == pytest.approx(0.5)
    assert normal_upper_tail(1.959963984540054) == pytest.approx(0.025, rel=1e-9)


def test_student_t_tails_by_hand():
    # 1 degree of freedom is the Cauchy distribution: P(T >= 1) = 1/2 - atan(1)/pi = 1/4
    assert student_t_upper_tail(1.0, 1) == pytest.approx(0.25, rel=1e-12)
    # 2 degrees of freedom: P(T >= t) = 1/2 - t / (2 sqrt(2 + t^2)); t = 2: 1/2 - 1/sqrt(6) = 0.091752...
    assert student_t_upper_tail(2.0, 2) == pytest.approx(0.5 - 1 / math.sqrt(6), rel=1e-12)
    assert student_t_upper_tail(-2.0, 2) == pytest.approx(0.5 + 1 / math.sqrt(6), rel=1e-12)
    assert student_t_upper_tail(0.0, 7) == pytest.approx(0.5)


def test_mean_increase_is_a_prediction_interval_over_the_baseline_months():
    # baseline months 30, 31, 32 -> mean 31, sd 1, B = 3; a month at 31 + 2 * sqrt(4/3) gives t = 2, df = 2
    value = 31 + 2 * math.sqrt(1 + 1 / 3)
    assert mean_increase_p_value(value, 31.0, 1.0, 3) == pytest.approx(0.5 - 1 / math.sqrt(6), rel=1e-12)
    assert mean_increase_p_value(40.0, 31.0, None, 3) is None  # no spread, no test
    assert mean_increase_p_value(40.0, 31.0, 0.0, 3) is None
    assert mean_increase_p_value(40.0, 31.0, 1.0, 1) is None  # one month has no spread


# --- Benjamini-Hochberg by hand ---------------------------------------------------------------------


def test_benjamini_hochberg_on_a_hand_list():
    # m = 5, sorted p: 0.001 0.008 0.039 0.041 0.60
    # raw p*m/rank: 0.005, 0.02, 0.065, 0.05125, 0.60 -> step-up minimum from the top:
    # 0.60, min(0.05125, 0.60)=0.05125, min(0.065, 0.05125)=0.05125, 0.02, 0.005
    p = [0.041, 0.001, 0.60, 0.008, 0.039]
    assert benjamini_hochberg(p) == pytest.approx([0.05125, 0.005, 0.60, 0.02, 0.05125])
    # at alpha 0.05 only 0.001 and 0.008 are rejected, though four raw p-values are below 0.05
    assert [q <= 0.05 for q in benjamini_hochberg(p)] == [False, True, False, True, False]


def test_benjamini_hochberg_of_nothing_and_of_one():
    assert benjamini_hochberg([]) == []
    assert benjamini_hochberg([0.03]) == [0.03]


probabilities = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), max_size=60)


@given(probabilities)
def test_bh_q_values_are_monotone_in_p_and_never_below_p(p_values):
    q = benjamini_hochberg(p_values)
    for i, j in ((i, j) for i in range(len(p_values)) for j in range(len(p_values))):
        if p_values[i] <= p_values[j]:
            assert q[i] <= q[j] + 1e-15
    assert all(p <= qi + 1e-15 and qi <= 1.0 for p, qi in zip(p_values, q, strict=True))


@given(probabilities, st.sampled_from([0.01, 0.05, 0.1]))
def test_bh_never_rejects_more_than_raw_alpha(p_values, alpha):
    q = benjamini_hochberg(p_values)
    assert sum(qi <= alpha for qi in q) <= sum(p <= alpha for p in p_values)


@given(st.integers(0, 120), st.integers(1, 120), st.floats(0.01, 0.99))
def test_binomial_tail_is_a_probability_decreasing_in_k(k, n, p):
    here, next_k = binomial_upper_tail(k, n, p), binomial_upper_tail(k + 1, n, p)
    assert 0.0 <= next_k <= here <= 1.0


@given(st.integers(1, 200), st.integers(1, 200), st.floats(0.02, 0.98))
def test_incomplete_beta_equals_the_summed_tail(k, extra, p):
    n = k + extra - 1
    direct = binomial_upper_tail(k, n, p)  # n <= 399: summed term by term up to 200 trials
    assert regularized_incomplete_beta(k, n - k + 1, p) == pytest.approx(direct, rel=1e-8, abs=1e-14)


# --- judging mart rows ------------------------------------------------------------------------------


def carc_row(key, k, n, big_k, big_n):
    return {
        "alert_key": key,
        "metric": "carc_denial_rate",
        "denied_claims": k,
        "sample_size": n,
        "baseline_denied_claims": big_k,
        "baseline_sample_size": big_n,
        "metric_value": k / n,
        "baseline_mean": big_k / big_n,
        "baseline_stddev": None,
    }


def days_row(key, value, mean, stddev, months):
    return {
        "alert_key": key,
        "metric": "days_to_pay",
        "metric_value": value,
        "baseline_mean": mean,
        "baseline_stddev": stddev,
        "baseline_months": months,
    }


def test_judge_corrects_each_metric_across_all_its_cells_and_skips_untestable_ones():
    rows = [
        carc_row("jump", 6, 20, 0, 80),  # p = 0.2^6 = 0.000064
        carc_row("steady", 5, 20, 12, 60),  # Bin(17, 0.25) tail at 5 = 0.4261...
        carc_row("mild", 7, 20, 12, 60),  # Bin(19, 0.25) tail at 7
        days_row("days-no-spread", 40.0, 30.0, None, 4),
        days_row("days-slow", 31 + 2 * math.sqrt(1 + 1 / 3), 31.0, 1.0, 3),  # t = 2, df = 2: p = 0.0917...
    ]
    judged = judge(rows)
    assert set(judged) == {"jump", "steady", "mild", "days-slow"}  # a days cell without a spread is not tested
    # CARC family, m = 3: q(jump) = 0.000064 * 3 / 1 = 0.000192
    assert judged["jump"].q_value == pytest.approx(0.000192, rel=1e-9)
    mild = sum(math.comb(19, i) * 0.25**i * 0.75 ** (19 - i) for i in range(7, 20))
    assert judged["mild"].q_value == pytest.approx(mild * 3 / 2, rel=1e-9)
    # the days family holds one cell: its q-value is its p-value
    assert judged["days-slow"].q_value == pytest.approx(0.5 - 1 / math.sqrt(6), rel=1e-9)
    assert judged["jump"].alert and not judged["steady"].alert and not judged["days-slow"].alert
