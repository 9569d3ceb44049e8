"""Expected value of an action: P x amount - effort cost, with P's credible interval carried through."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.action_selection import value

D = Decimal


def test_the_uniform_beta_and_a_beta_2_1_by_hand():
    p = value.beta_probability(1.0, 1.0, 0)
    # Beta(1, 1) is uniform: mean 1/2, quantiles are the probabilities themselves
    assert (p.mean, p.low, p.high, p.sample_size) == (0.5, pytest.approx(0.025), pytest.approx(0.975), 0)
    q = value.beta_probability(2.0, 1.0, 1)
    # Beta(2, 1) has CDF x^2: mean 2/3, quantile q -> sqrt(q): sqrt(0.025) = 0.158114, sqrt(0.975) = 0.987421
    assert q.mean == pytest.approx(2 / 3)
    assert q.low == pytest.approx(math.sqrt(0.025)) and q.low == pytest.approx(0.158114, abs=1e-6)
    assert q.high == pytest.approx(0.987421, abs=1e-6)


def test_expected_value_and_its_interval_by_hand():
    p = value.Probability(0.5, 0.025, 0.975, 0)
    v = value.value("appeal-level-1", p, D("1000.00"), D("60.00"))
    assert v.expected_value == D("440.00")  # 0.5 x 1000 - 60
    assert v.expected_low == D("-35.00")  # 0.025 x 1000 - 60
    assert v.expected_high == D("915.00")  # 0.975 x 1000 - 60
    w = value.value("x", value.Probability(0.3333, 0.2, 0.5, 12), D("123.45"), D("20.00"))
    assert w.expected_value == D("21.15")  # 0.3333 x 123.45 = 41.146... - 20 = 21.146... -> 21.15


def test_a_write_off_is_minus_its_cost():
    v = value.value("write-off", value.CERTAIN, D("0.00"), D("4.00"))
    assert (v.expected_value, v.expected_low, v.expected_high) == (D("-4.00"), D("-4.00"), D("-4.00"))


def test_ranking_highest_value_then_cheaper_then_key():
    p = value.Probability(0.5, 0.4, 0.6, 10)
    a = value.value("b-call", p, D("100.00"), D("20.00"))  # 30.00
    b = value.value("a-claim", p, D("100.00"), D("20.00"))  # 30.00, same cost: key decides
    c = value.value("appeal", p, D("100.00"), D("10.00"))  # 40.00
    d = value.value("write-off", value.CERTAIN, D("0.00"), D("4.00"))  # -4.00
    assert [v.key for v in value.ranked([d, a, b, c])] == ["appeal", "a-claim", "b-call", "write-off"]


def test_evidence_per_kind():
    assert value.evidence_of("appeal") == "payer_category"
    assert value.evidence_of("patient_billing") == "none"
    assert value.evidence_of("write_off") == "certain_nothing"
    assert value.evidence_of("something-new") == "none"


def test_negative_inputs_are_refused():
    with pytest.raises(ValueError):
        value.value("x", value.CERTAIN, D("-1"), D("0"))
    with pytest.raises(ValueError):
        value.beta_probability(0.0, 1.0, 0)


amounts = st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False, allow_infinity=False)


@given(
    a=st.floats(min_value=0.05, max_value=500),
    b=st.floats(min_value=0.05, max_value=500),
    amount=amounts,
    cost=st.decimals(min_value=0, max_value=10**4, places=2, allow_nan=False, allow_infinity=False),
)
def test_the_interval_holds_the_expected_value(a, b, amount, cost):
    p = value.beta_probability(a, b, 0)
    v = value.value("x", p, amount, cost)
    assert p.low <= p.mean <= p.high
    assert v.expected_low <= v.expected_value <= v.expected_high
    assert v.expected_high <= amount - cost + D("0.01")
    assert v.expected_low >= -cost - D("0.01")
