"""The difference between two pooled estimates (pure).

first - second with se = sqrt(se1² + se2²), a normal 95% interval and a two-sided p-value: the variance of
a difference of two independent estimates (e.g. Altman & Bland 2003, "Interaction revisited: the
difference between two estimates", BMJ 326:219). Two syntheses that pooled some of the same evidence
records are positively correlated; then the interval is too wide (conservative), and the statement says
how many records they share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from api.evidence.evidence.estimators import independent_difference


@dataclass(frozen=True)
class Difference:
    estimate: float
    standard_error: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool
    shared_studies: int
    statement: str


def difference(first: float, first_se: float, second: float, second_se: float, shared_studies: int) -> Difference:
    """first - second, taken as independent; `shared_studies` evidence records pooled by both (named in the
    statement). Raises ValueError for a non-finite number or a negative standard error."""
    numbers = (first, first_se, second, second_se)
    if not all(math.isfinite(x) for x in numbers) or first_se < 0 or second_se < 0:
        raise ValueError("estimates must be finite and standard errors >= 0")
    d = independent_difference(first, first_se, second, second_se)
    estimate, se, low, high = d.estimate, d.standard_error, d.ci_low, d.ci_high
    p_value, significant = d.p_value, d.significant
    interval = f"95% interval {low * 100:+.1f} to {high * 100:+.1f} points"
    if significant:
        verdict = f"the two pooled estimates differ (p = {p_value:.3g})"
    else:
        verdict = f"not distinguishable (p = {p_value:.3g}): any difference in that interval, including none, fits"
    overlap = (
        f" They share {shared_studies} evidence record(s), so they are not independent: the interval is too wide, "
        "not too narrow."
        if shared_studies
        else " They share no evidence record."
    )
    return Difference(
        estimate,
        se,
        low,
        high,
        p_value,
        significant,
        shared_studies,
        f"The first random-effects estimate minus the second is {estimate * 100:+.1f} percentage points "
        f"({interval}, SE {se * 100:.1f}): {verdict}. The two are taken as independent "
        f"(se = sqrt(se1² + se2²)).{overlap}",
    )
