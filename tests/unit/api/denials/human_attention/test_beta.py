"""The pure-Python Beta CDF and quantiles against closed forms."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.human_attention.beta import beta_cdf, beta_ppf

probabilities = st.floats(min_value=0.001, max_value=0.999)
shapes = st.floats(min_value=0.2, max_value=2000.0)


@given(probabilities)
def test_uniform_is_the_identity(x):
    assert beta_cdf(x, 1.0, 1.0) == pytest.approx(x, abs=1e-12)
    assert beta_ppf(x, 1.0, 1.0) == pytest.approx(x, abs=1e-11)


@given(probabilities, st.floats(min_value=0.3, max_value=50.0))
def test_closed_forms_with_a_shape_of_one(x, a):
    # I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b
    assert beta_cdf(x, a, 1.0) == pytest.approx(x**a, abs=1e-11)
    assert beta_cdf(x, 1.0, a) == pytest.approx(1 - (1 - x) ** a, abs=1e-11)
    assert beta_ppf(x, a, 1.0) == pytest.approx(x ** (1 / a), abs=1e-9)


@given(shapes)
def test_symmetric_median_is_one_half(a):
    assert beta_cdf(0.5, a, a) == pytest.approx(0.5, abs=1e-10)
    assert beta_ppf(0.5, a, a) == pytest.approx(0.5, abs=1e-9)


def test_hand_computed_values():
    # Beta(2, 3): CDF = 6x^2/2 - 8x^3/3 + 3x^4 ... = x^2 (6 - 8x + 3x^2); at 0.3: 0.09 x 4.47 = 0.3483
    assert beta_cdf(0.3, 2, 3) == pytest.approx(0.3483, abs=1e-12)
    # Beta(2, 5) at 0.3: 1 - (1-x)^5 (1 + 5x) ... = 1 - 0.16807 x 2.5 = 0.579825
    assert beta_cdf(0.3, 2, 5) == pytest.approx(0.579825, abs=1e-12)


@given(probabilities, shapes, shapes)
def test_the_quantile_inverts_the_cdf(q, a, b):
    x = beta_ppf(q, a, b)
    assert 0.0 <= x <= 1.0
    if beta_cdf(x, a, b) != pytest.approx(q, abs=1e-7):
        # a steep CDF (a shape below 1, x a few ulps from an edge): q lies between x's neighbours
        step = 4 * math.ulp(x)
        assert beta_cdf(max(x - step, 0.0), a, b) <= q <= beta_cdf(min(x + step, 1.0), a, b)


@given(shapes, shapes, probabilities, probabilities)
def test_the_cdf_is_monotone(a, b, x, y):
    lo, hi = sorted((x, y))
    assert beta_cdf(lo, a, b) <= beta_cdf(hi, a, b) + 1e-12


def test_edges_and_bad_parameters():
    assert (beta_cdf(0.0, 2, 3), beta_cdf(1.0, 2, 3), beta_ppf(0.0, 2, 3), beta_ppf(1.0, 2, 3)) == (0, 1, 0, 1)
    with pytest.raises(ValueError):
        beta_cdf(0.5, 0, 1)
    with pytest.raises(ValueError):
        beta_ppf(1.5, 1, 1)
