"""Revenue at risk: the expected recovery and its interval, and the monthly trend, against numbers worked
out by hand (z = 1.959964, t(0.975, 1) = 12.706205), and properties of the formulas."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.revenue_payer_intelligence.risk import Exposure, recovery, trend

D = Decimal


def test_five_denials_one_overturned_by_hand():
    # n = 5 denials, k = 1 overturned; unrecovered 100, 200, 400, 150 (the overturned one: 0):
    #   A = 850, S2 = 100^2 + 200^2 + 400^2 + 150^2 = 232,500.
    # Posterior Beta(1.5, 4.5): E[p] = 1.5 / 6 = 0.25; Var(p) = 1.5 * 4.5 / (36 * 7) = 3/112 = 0.0267857;
    #   E[p(1-p)] = 0.25 * 0.75 - 3/112 = 9/56.
    # E[R] = 0.25 * 850 = 212.50; Var[R] = 9/56 * 232,500 + 3/112 * 850^2 = 37,366.07 + 19,352.68 = 56,718.75;
    #   sd = 238.157, half = 1.959964 * 238.157 = 466.779 -> (212.50 - 466.78 < 0 -> 0.00, 679.28).
    # Loss = 850 - R: 637.50, (850 - 679.28, 850 - 0) = (170.72, 850.00).
    # Rate: 0.25 +/- 1.959964 * sqrt(3/112) = 0.25 +/- 0.320774 -> (0, 0.570774).
    found = recovery(Exposure(5, 1, D("850.00"), 232_500.0))
    assert found is not None
    assert found.overturn_rate == pytest.approx(0.25)
    assert (found.overturn_rate_low, found.overturn_rate_high) == pytest.approx((0.0, 0.570774), abs=1e-6)
    assert found.expected_recovery == D("212.50")
    assert (found.recovery_low, found.recovery_high) == (D("0.00"), D("679.28"))
    assert found.expected_loss == D("637.50")
    assert (found.loss_low, found.loss_high) == (D("170.72"), D("850.00"))
    assert found.variance == pytest.approx(56_718.75)


def test_one_denial_never_overturned_by_hand():
    # n = 1, k = 0, one denial of 200: Beta(0.5, 1.5), E[p] = 0.25, Var(p) = 0.75 / (4 * 3) = 0.0625,
    # E[p(1-p)] = 0.1875 - 0.0625 = 0.125; Var[R] = 0.125 * 40,000 + 0.0625 * 40,000 = 7,500, sd 86.60;
    # 50 +/- 169.74 -> (0.00, 219.74) clipped to the 200.00 at risk.
    found = recovery(Exposure(1, 0, D("200.00"), 40_000.0))
    assert found is not None
    assert (found.expected_recovery, found.recovery_low, found.recovery_high) == (D("50.00"), D("0.00"), D("200.00"))
    assert (found.expected_loss, found.loss_low, found.loss_high) == (D("150.00"), D("0.00"), D("200.00"))


def test_no_denial_has_no_rate():
    assert recovery(Exposure(0, 0, D("0"), 0.0)) is None


@pytest.mark.parametrize(
    "exposure", [Exposure(3, 4, D("1"), 1.0), Exposure(3, -1, D("1"), 1.0), Exposure(3, 1, D("-1"), 1.0)]
)
def test_impossible_counts_are_refused(exposure):
    with pytest.raises(ValueError):
        recovery(exposure)


amounts = st.lists(st.decimals(min_value=0, max_value=1_000_000, places=2), min_size=1, max_size=40)


@given(amounts, st.data())
def test_the_interval_holds_the_expectation_and_stays_within_what_is_at_risk(denied, data):
    k = data.draw(st.integers(0, len(denied)))
    total = sum(denied, D("0"))
    found = recovery(Exposure(len(denied), k, total, float(sum(a * a for a in denied))))
    assert found is not None
    assert D("0") <= found.recovery_low <= found.expected_recovery <= found.recovery_high <= total
    assert found.expected_recovery + found.expected_loss == total
    assert found.loss_low + found.recovery_high == total and found.loss_high + found.recovery_low == total
    assert 0 <= found.overturn_rate_low <= found.overturn_rate <= found.overturn_rate_high <= 1


def test_three_months_without_a_trend_by_hand():
    # y = 100, 600, 150 at x = 0, 1, 2: x mean 1, y mean 850/3; Sxy = -(100 - 283.33) + (150 - 283.33) = 50,
    # Sxx = 2 -> slope 25. Residuals -158.33, 316.67, -158.33: SSE = 1,353,750 / 9 = 150,416.67 on 1 df;
    # SE = sqrt(150,416.67 / 2) = 274.2414; half = 12.706205 * 274.2414 = 3,484.57 -> (-3,459.57, 3,509.57).
    found = trend([D("100"), D("600"), D("150")])
    assert (found.slope_per_month, found.slope_low, found.slope_high) == (D("25.00"), D("-3459.57"), D("3509.57"))
    assert found.statement.startswith("no trend the 3 months can tell from noise")
    assert "-$3,459.57 to $3,509.57" in found.statement


def test_a_straight_line_is_its_own_trend():
    rising = trend([D("100"), D("200"), D("300"), D("400")])
    assert (rising.slope_per_month, rising.slope_low, rising.slope_high) == (D("100.00"),) * 3
    assert rising.statement.startswith("rising by about $100.00 a month")
    falling = trend([D("300"), D("200"), D("100")])
    assert falling.statement.startswith("falling by about $100.00 a month")


def test_two_months_claim_no_slope():
    found = trend([D("1"), D("5")])
    assert found.slope_per_month is None and "at least 3" in found.statement
