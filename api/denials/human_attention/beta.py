"""The Beta distribution's CDF (the regularised incomplete beta function) and its inverse, in pure
Python (no SciPy in the service's environment; pure, no I/O).

``beta_cdf`` follows the continued fraction of Numerical Recipes (modified Lentz), using the symmetry
I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly. ``beta_ppf`` inverts it by
bisection: the CDF is monotone, so bisection cannot miss; it stops at 15 significant digits of the
distance to the nearer edge (or when no double lies between the bounds).
"""

from __future__ import annotations

import math

_EPS = 1e-15
_TINY = 1e-300
_MAX_TERMS = 100_000


def _continued_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def beta_cdf(x: float, a: float, b: float) -> float:
    """P(X <= x) for X ~ Beta(a, b), a, b > 0."""
    if a <= 0 or b <= 0:
        raise ValueError("Beta parameters must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, front * _continued_fraction(a, b, x) / a)
    return max(0.0, 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b)


def beta_ppf(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b): the x with P(X <= x) = q."""
    if not 0.0 <= q <= 1.0:
        raise ValueError("a quantile's probability is between 0 and 1")
    if q == 0.0:
        return 0.0
    if q == 1.0:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(400):
        mid = (lo + hi) / 2.0
        if not lo < mid < hi:  # adjacent doubles: nothing left to halve
            break
        if beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
        # relative to the nearer edge: a quantile near 0 or 1 (a shape below 1) needs digits there
        if hi - lo <= 1e-15 * min(hi, 1.0 - lo):
            break
    return (lo + hi) / 2.0
