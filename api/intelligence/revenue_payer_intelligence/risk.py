"""Revenue at risk per payer and how much of it is likely to come back (pure).

**At risk** is what a payer initially denied and has not paid back yet: per claim x payer,
max(initial denied amount - recovered amount, 0) (the marts' `int_claim_payer_adjudications`: a COB
secondary's denial is the secondary's). It is the numerator of the HFMA MAP Key "Denials, % of claims
(dollars)" less the overturns already booked; it is not a write-off.

**Expected recovery.** Each unrecovered denial i of amount a_i is overturned with the payer's probability p
(X_i ~ Bernoulli(p), independent given p). p is unknown: its posterior after the payer's k overturns of n
denials in the window is Beta(k + 1/2, n - k + 1/2) (Jeffreys' prior, Jeffreys 1946; the same prior as
the Jeffreys interval of Brown, Cai & DasGupta 2001). With A = sum a_i and S2 = sum a_i^2, the
recovered amount R = sum a_i X_i has, by the laws of total expectation and total variance,

    E[R]   = E[p] A
    Var[R] = E[p (1 - p)] S2 + Var(p) A^2,     E[p (1 - p)] = E[p](1 - E[p]) - Var(p)

(the first term: which claims come back; the second: not knowing the payer's rate). The 95% interval is
E[R] +/- z sd, normal (many claims of comparable size), clipped to [0, A]; the expected loss is A - R.

What it assumes, and says: every unrecovered denial in the window is still recoverable at the payer's
historical rate. Denials past their appeal window are counted too (the marts do not know a case's
state), so for old months the expected recovery is an upper reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from statistics import NormalDist

CONFIDENCE = 0.95
Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # 1.959963984540054
PRIOR = 0.5  # Jeffreys: Beta(1/2, 1/2)
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Exposure:
    """A payer's denials in the window, as the marts count them."""

    denied_claims: int  # n
    overturned_claims: int  # k
    at_risk_amount: Decimal  # A
    at_risk_sum_squares: float  # S2, in dollars squared


@dataclass(frozen=True)
class Recovery:
    overturn_rate: float  # E[p]
    overturn_rate_low: float
    overturn_rate_high: float
    expected_recovery: Decimal
    recovery_low: Decimal
    recovery_high: Decimal
    expected_loss: Decimal
    loss_low: Decimal
    loss_high: Decimal
    variance: float  # Var[R], dollars squared: payers' recoveries are independent, so totals add it


def _dollars(value: float) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def _cents(value: float) -> Decimal:
    return Decimal(repr(value)).quantize(CENT, rounding=ROUND_HALF_EVEN)


def recovery(exposure: Exposure) -> Recovery | None:
    """The expected recovery of `exposure` with its interval; None without a denial (no rate to apply)."""
    n, k = exposure.denied_claims, exposure.overturned_claims
    if not 0 <= k <= n:
        raise ValueError(f"overturned claims ({k}) must be between 0 and the denied claims ({n})")
    total = float(exposure.at_risk_amount)
    if total < 0 or exposure.at_risk_sum_squares < 0:
        raise ValueError("amounts at risk are never negative")
    if n == 0:
        return None
    alpha, beta = k + PRIOR, n - k + PRIOR
    mean = alpha / (alpha + beta)
    var_p = alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1))
    expected = mean * total
    variance = (mean * (1 - mean) - var_p) * exposure.at_risk_sum_squares + var_p * total**2
    rate_half = Z * math.sqrt(var_p)
    at_risk = exposure.at_risk_amount.quantize(CENT, rounding=ROUND_HALF_EVEN)
    expected_recovery = _cents(expected)
    recovery_low, recovery_high = interval(expected, variance, total)
    return Recovery(
        overturn_rate=mean,
        overturn_rate_low=max(mean - rate_half, 0.0),
        overturn_rate_high=min(mean + rate_half, 1.0),
        expected_recovery=expected_recovery,
        recovery_low=recovery_low,
        recovery_high=recovery_high,
        expected_loss=at_risk - expected_recovery,
        loss_low=at_risk - recovery_high,
        loss_high=at_risk - recovery_low,
        variance=variance,
    )


def interval(expected: float, variance: float, total: float) -> tuple[Decimal, Decimal]:
    """E +/- z sd clipped to [0, total], in cents (a sum of payers' recoveries: expectations and variances add)."""
    half = Z * math.sqrt(max(variance, 0.0))
    return _cents(max(expected - half, 0.0)), _cents(min(expected + half, total))


@dataclass(frozen=True)
class Trend:
    months: int
    slope_per_month: Decimal | None  # ordinary least squares of the monthly amount on the month's index
    slope_low: Decimal | None
    slope_high: Decimal | None
    statement: str


MIN_TREND_MONTHS = 3


def trend(amounts: list[Decimal]) -> Trend:
    """The linear trend of consecutive monthly `amounts` (months without denials are 0): the OLS slope with
    its 95% t interval on n - 2 degrees of freedom. Below `MIN_TREND_MONTHS` there is no interval, so no
    slope is claimed."""
    n = len(amounts)
    if n < MIN_TREND_MONTHS:
        return Trend(n, None, None, None, f"{n} month(s): at least {MIN_TREND_MONTHS} are needed for a trend")
    from scipy.stats import t as student_t  # imported when used: scipy.stats costs 0.6 s at API start

    ys = [float(a) for a in amounts]
    x_mean, y_mean = (n - 1) / 2, sum(ys) / n
    sxx = sum((x - x_mean) ** 2 for x in range(n))
    slope = sum((x - x_mean) * (y - y_mean) for x, y in enumerate(ys)) / sxx
    residuals = [y - (y_mean + slope * (x - x_mean)) for x, y in enumerate(ys)]
    se = math.sqrt(sum(r * r for r in residuals) / (n - 2) / sxx)
    half = float(student_t.ppf(0.5 + CONFIDENCE / 2, n - 2)) * se
    low, high = slope - half, slope + half
    interval = f"95% interval {_dollars(low)} to {_dollars(high)} a month"
    if low > 0:
        statement = f"rising by about {_dollars(slope)} a month ({interval})"
    elif high < 0:
        statement = f"falling by about {_dollars(-slope)} a month ({interval})"
    else:
        statement = f"no trend the {n} months can tell from noise ({interval})"
    return Trend(n, _cents(slope), _cents(low), _cents(high), statement)
