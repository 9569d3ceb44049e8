"""The change radar's statistics: exact tail probabilities and the Benjamini-Hochberg correction.

Pure functions, no I/O. Why they live here and not in SQL: Benjamini-Hochberg ranks the p-values
of every cell tested for a tenant (per metric, see queries.judge), and neither DuckDB nor PostgreSQL
has a binomial tail, so the mart (fct_payer_change_alerts) carries the counts of every tested cell and
the procedure decides.

A CARC cell (payer x CARC x month) is tested with the conditional test of two Poisson rates
(Przyborowski & Wilenski): k claims denied with the CARC among n claims of the month, K among N
claims of the payer's baseline months. Under "same rate as the baseline", given the k + K
denials, the month's share follows Binomial(k + K, n / (n + N)); the p-value is the upper tail
P(X >= k). Unlike a test against the baseline rate K / N taken as exact, it stays valid when
the baseline is short or zero (K = 0 does not make every denial "infinitely significant").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Below this many trials the tail is summed term by term (exact, cheap); above, the regularized
# incomplete beta function, whose continued fraction converges in O(sqrt(n)) steps.
_DIRECT_SUM_MAX_TRIALS = 200
_CF_MAX_ITERATIONS = 10_000
_CF_EPSILON = 1e-15
_TINY = 1e-300


def binomial_upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if n < 0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"binomial tail needs n >= 0 and 0 <= p <= 1, got n={n}, p={p}")
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    if n <= _DIRECT_SUM_MAX_TRIALS:
        return min(1.0, math.fsum(_binomial_pmf(i, n, p) for i in range(k, n + 1)))
    # P(X >= k) = I_p(k, n - k + 1)
    return regularized_incomplete_beta(float(k), float(n - k + 1), p)


def _binomial_pmf(i: int, n: int, p: float) -> float:
    log_pmf = (
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p) + (n - i) * math.log1p(-p)
    )
    return math.exp(log_pmf)


def regularized_incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1 (Lentz's continued fraction, Numerical Recipes 6.4)."""
    if a <= 0 or b <= 0 or not 0.0 <= x <= 1.0:
        raise ValueError(f"incomplete beta needs a, b > 0 and 0 <= x <= 1, got a={a}, b={b}, x={x}")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _CF_MAX_ITERATIONS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            h *= step
        if abs(step - 1.0) < _CF_EPSILON:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def rate_increase_p_value(k: int, n: int, baseline_k: int, baseline_n: int) -> float:
    """One-sided p-value that k events in n exposures exceed the rate of baseline_k in baseline_n.

    Conditional test of two Poisson rates: given k + baseline_k events, the month's count is
    Binomial(k + baseline_k, n / (n + baseline_n)) under equal rates.
    """
    if n <= 0 or baseline_n <= 0:
        raise ValueError(f"both exposures must be positive, got n={n}, baseline_n={baseline_n}")
    if k < 0 or baseline_k < 0:
        raise ValueError(f"counts must be >= 0, got k={k}, baseline_k={baseline_k}")
    return binomial_upper_tail(k, k + baseline_k, n / (n + baseline_n))


def normal_upper_tail(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def student_t_upper_tail(t: float, degrees_of_freedom: float) -> float:
    """P(T >= t) for Student's t with the given degrees of freedom (> 0)."""
    if degrees_of_freedom <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {degrees_of_freedom}")
    half_tail = 0.5 * regularized_incomplete_beta(
        degrees_of_freedom / 2.0, 0.5, degrees_of_freedom / (degrees_of_freedom + t * t)
    )
    return half_tail if t >= 0 else 1.0 - half_tail


def mean_increase_p_value(
    value: float, baseline_mean: float, baseline_stddev: float | None, baseline_months: int
) -> float | None:
    """One-sided p-value that a month's value exceeds what its baseline months predict.

    The baseline is the B previous monthly values, mean m and sample standard deviation s; under
    "this month is one more month like them" (normal), (value - m) / (s * sqrt(1 + 1/B)) follows
    Student's t with B - 1 degrees of freedom (a prediction interval). The spread is month to month,
    so calendar effects (payment weekdays, month lengths) are part of the noise, not alerts.
    None when the baseline has no spread or fewer than 2 months.
    """
    if baseline_months < 2 or not baseline_stddev or baseline_stddev <= 0:
        return None
    t = (value - baseline_mean) / (baseline_stddev * math.sqrt(1.0 + 1.0 / baseline_months))
    return student_t_upper_tail(t, baseline_months - 1)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given.

    q_(i) = min over j >= i of p_(j) * m / j for the ascending order p_(1) <= ... <= p_(m),
    capped at 1; rejecting every q <= alpha controls the false discovery rate at alpha.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    q_values = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        index = order[rank - 1]
        running = min(running, p_values[index] * m / rank)
        q_values[index] = running
    return q_values
