"""The percentile bootstrap (bootstrap.py): exact on degenerate histories, reproducible from its seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.intelligence.revenue_simulation import bootstrap, whatif


def total(values: list[float]):
    x = np.asarray(values, dtype=np.float64)
    return lambda w: float(w @ x)


def test_one_row_has_no_uncertainty():
    found = bootstrap.interval(1, total([42.5]), replications=200, seed=7)
    assert (found.estimate, found.low, found.high) == (42.5, 42.5, 42.5)


def test_equal_rows_have_no_uncertainty():
    found = bootstrap.interval(5, total([10.0] * 5), replications=300, seed=1)
    assert (found.estimate, found.low, found.high) == (50.0, 50.0, 50.0)


def test_no_rows_is_zero():
    found = bootstrap.interval(0, total([]), replications=100, seed=1)
    assert (found.estimate, found.low, found.high) == (0.0, 0.0, 0.0)


def test_two_rows_by_hand():
    # rows 0 and 100: a resample sums 0 (p 1/4), 100 (1/2) or 200 (1/4); with 2000 draws the 2.5th and
    # 97.5th percentiles are 0 and 200
    found = bootstrap.interval(2, total([0.0, 100.0]), replications=2000, seed=3)
    assert (found.estimate, found.low, found.high) == (100.0, 0.0, 200.0)


def test_the_same_seed_gives_the_same_interval_and_another_seed_may_not():
    values = [float(v) for v in range(1, 40)]
    first = bootstrap.interval(len(values), total(values), replications=500, seed=11)
    again = bootstrap.interval(len(values), total(values), replications=500, seed=11)
    other = bootstrap.interval(len(values), total(values), replications=500, seed=12)
    assert first == again
    assert (other.low, other.high) != (first.low, first.high)


@pytest.mark.parametrize(("replications", "seed"), [(0, 1), (2001, 1), (100, -1), (100, 2**32)])
def test_caps_are_refused(replications, seed):
    with pytest.raises(ValueError):
        bootstrap.interval(3, total([1.0, 2.0, 3.0]), replications=replications, seed=seed)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=1e5, allow_nan=False), min_size=1, max_size=30),
    st.integers(min_value=0, max_value=2**32 - 1),
)
def test_the_interval_of_a_prevention_holds_its_estimate(denied, seed):
    rows = [whatif.Row("P", 0.0, d, 0.0, False, "coding", matched=d) for d in denied]
    cols = whatif.columns(rows)
    found = bootstrap.interval(cols.size, whatif.effect_of(cols, whatif.Prevention(0.5)), replications=400, seed=seed)
    assert found.low <= found.estimate + 1e-6 and found.estimate <= found.high + 1e-6
    assert found == bootstrap.interval(
        cols.size, whatif.effect_of(cols, whatif.Prevention(0.5)), replications=400, seed=seed
    )
