"""The suggestion rule: appeal when the Wilson lower bound x the average denied amount pays for an appeal."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.recovery_strategy import rule

D = Decimal


def test_wilson_by_hand():
    # 7 of 10, z = 1.959964, z^2 = 3.841459: centre = (0.7 + 3.841459/20) / (1 + 3.841459/10) = 0.892073 / 1.384146
    # = 0.644493; half = z sqrt(0.7 x 0.3 / 10 + 3.841459 / 400) / 1.384146 = 1.959964 x 0.174939 / 1.384146 = 0.247716
    low, high = rule.wilson(7, 10)
    assert low == pytest.approx(0.396778, abs=1e-6)  # 0.644493 - 0.247716
    assert high == pytest.approx(0.892209, abs=1e-5)  # 0.644493 + 0.247716
    # 0 of 10: the lower bound is 0, the upper z^2/n / (1 + z^2/n) = 0.384146 / 1.384146 = 0.277533
    assert rule.wilson(0, 10) == (0.0, pytest.approx(0.277533, abs=1e-6))


def test_appeal_when_the_pessimistic_recovery_pays_for_the_appeal():
    s = rule.suggest(7, 10, D("5000.00"), D("60.00"))
    assert s is not None
    assert s.action_key == "appeal-level-1"
    assert s.average_denied_amount == D("500.00")  # 5000 / 10
    assert s.pessimistic_recovery == D("198.39")  # 0.396778 x 500 = 198.389
    assert (s.denied_claims, s.overturned_claims, s.overturn_rate) == (10, 7, 0.7)
    assert "7 of 10" in s.rule and "appeal" in s.rule


def test_write_off_when_it_does_not():
    s = rule.suggest(0, 10, D("5000.00"), D("60.00"))
    assert s is not None and s.action_key == "write-off"
    assert s.pessimistic_recovery == D("0.00")  # lower bound 0
    # 7 of 10 on small claims: 0.396778 x 100 = 39.68 < 60
    small = rule.suggest(7, 10, D("1000.00"), D("60.00"))
    assert small is not None and small.action_key == "write-off" and small.pessimistic_recovery == D("39.68")


def test_no_denials_no_suggestion():
    assert rule.suggest(0, 0, D("0"), D("60.00")) is None
    with pytest.raises(ValueError):
        rule.suggest(3, 2, D("1"), D("1"))


@given(n=st.integers(min_value=1, max_value=5000), data=st.data())
def test_more_overturns_never_turn_an_appeal_into_a_write_off(n, data):
    k = data.draw(st.integers(min_value=0, max_value=n - 1))
    amount = D(data.draw(st.integers(min_value=0, max_value=10**7))) / 100
    cost = D("60.00")
    fewer, more = rule.suggest(k, n, amount, cost), rule.suggest(k + 1, n, amount, cost)
    assert fewer is not None and more is not None
    assert more.rate_low >= fewer.rate_low
    if fewer.action_key == "appeal-level-1":
        assert more.action_key == "appeal-level-1"
