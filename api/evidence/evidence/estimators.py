"""Does an intervention against a denial pattern work? Rates, before/after and difference-in-differences (pure).

Inputs are counts: `events` (for example denied claims) out of `trials` (claims), as plain ints or
`(events, trials)` pairs. Every estimate comes with its 95% interval and the sample sizes behind it.

- `rate`: one proportion with the Wilson score interval (Wilson 1927), which stays inside [0, 1] and
  keeps its coverage for small counts and rates near 0 or 1, where the Wald interval fails (Brown, Cai &
  DasGupta 2001). No trials is not an error: the rate and interval are None and the reason says why.
- `before_after`: the change after - before with Newcombe's hybrid score interval built from the two
  Wilson intervals (Newcombe 1998, method 10). It says whether the rate moved, not why: anything else
  that changed between the two periods (payer policy, case mix) moves it too.
- `difference_in_differences`: the change in a treated group minus the change in a comparison group
  (Card & Krueger 1994; Angrist & Pischke 2009, ch. 5), which removes what hit both groups alike. Four
  independent binomial cells, normal approximation. Its `statement` says in plain English what the data
  can and cannot support, including the parallel-trends assumption it rests on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05
# The two-sided 95% normal critical value, norm.isf(ALPHA / 2), written out so that importing the API does not
# import scipy.stats (0.6 s in every process); a unit test checks it against scipy.
Z_CRIT = 1.959963984540054
DEFAULT_MIN_TRIALS = 30
# Said with every difference-in-differences: the estimate means nothing without this assumption.
PARALLEL = (
    "This assumes the treated and comparison groups' rates would have moved in parallel without the "
    "intervention; it cannot rule out anything else that changed for one group only."
)

Counts = tuple[int, int]


@dataclass(frozen=True)
class Rate:
    """`events` out of `trials`, the rate and its 95% Wilson interval (all None when `trials` is 0)."""

    events: int
    trials: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    reason: str | None  # why rate is None; None when it is estimated


@dataclass(frozen=True)
class Change:
    """after - before, with Newcombe's 95% interval; None (with the reason) when a period has no trials."""

    before: Rate
    after: Rate
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    n_before: int
    n_after: int
    reason: str | None


@dataclass(frozen=True)
class DiD:
    """Difference-in-differences of rates with its normal-approximation 95% interval and test of no effect.

    `estimate`, `standard_error`, the interval, `z` and `p_value` are None only when a cell has no trials
    (`statement` names it). `enough_trials` is False when a cell has fewer than the minimum trials; then
    the numbers are still given but `significant` is False, because the normal approximation behind the
    interval and p-value is not trustworthy there.
    """

    estimate: float | None
    standard_error: float | None
    ci_low: float | None
    ci_high: float | None
    z: float | None
    p_value: float | None
    significant: bool
    enough_trials: bool
    min_trials: int
    treated_before: Rate
    treated_after: Rate
    control_before: Rate
    control_after: Rate
    n_total: int
    statement: str


def two_sided_p(z: float) -> float:
    """The two-sided normal p-value of z, P(|Z| >= |z|) = 2 * norm.sf(|z|) = erfc(|z| / sqrt 2)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def _check_counts(events: int, trials: int, what: str) -> None:
    for name, value in (("events", events), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{what}: {name} must be an int, got {value!r}")
    if trials < 0 or events < 0:
        raise ValueError(f"{what}: events and trials must be >= 0, got {events}/{trials}")
    if events > trials:
        raise ValueError(f"{what}: events ({events}) cannot exceed trials ({trials})")


def rate(events: int, trials: int) -> Rate:
    """The rate events/trials with its 95% Wilson score interval (Wilson 1927).

    Zero trials gives rate and interval None with a reason instead of an error: an empty period or group
    is a normal state of the data, and the caller shows the reason.
    """
    _check_counts(events, trials, "rate")
    if trials == 0:
        return Rate(events, trials, None, None, None, "no trials: the rate cannot be estimated")
    from statsmodels.stats.proportion import proportion_confint  # imported when used: see Z_CRIT

    low, high = proportion_confint(events, trials, alpha=ALPHA, method="wilson")
    return Rate(events, trials, events / trials, float(low), float(high), None)


def _rate_of(counts: Counts, what: str) -> Rate:
    if not isinstance(counts, tuple | list) or len(counts) != 2:
        raise ValueError(f"{what}: expected an (events, trials) pair, got {counts!r}")
    events, trials = counts
    _check_counts(events, trials, what)
    return rate(events, trials)


def before_after(before: Counts, after: Counts) -> Change:
    """The change in rate after - before with Newcombe's hybrid score 95% interval (Newcombe 1998, method 10).

    With (l, u) the Wilson interval of each rate p and d = p_after - p_before, the interval is
    d - sqrt((p_after - l_after)^2 + (u_before - p_before)^2) to d + sqrt((u_after - p_after)^2 +
    (p_before - l_before)^2); computed by statsmodels' `confint_proportions_2indep(method="newcomb")`.
    It has near-nominal coverage even at rates of 0 or 1, unlike the Wald interval. A period without
    trials gives difference None with the reason.
    """
    b = _rate_of(before, "before")
    a = _rate_of(after, "after")
    if b.rate is None or a.rate is None:
        empty = " and ".join(name for name, r in (("before", b), ("after", a)) if r.rate is None)
        return Change(b, a, None, None, None, b.trials, a.trials, f"no trials {empty}: the change cannot be estimated")
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = confint_proportions_2indep(
        a.events, a.trials, b.events, b.trials, method="newcomb", compare="diff", alpha=ALPHA
    )
    # A difference of rates lies in [-1, 1]; the sums of square roots can overshoot by a rounding error.
    low, high = max(-1.0, float(low)), min(1.0, float(high))
    return Change(b, a, a.rate - b.rate, low, high, b.trials, a.trials, None)


def _variance_term(r: Rate) -> float:
    """p(1-p)/n of one cell; at p = 0 or 1 with p = (k + 0.5)/(n + 1) so that it is never 0 (see below)."""
    assert r.rate is not None  # callers pass only cells with trials
    p = r.rate
    if r.events in (0, r.trials):
        p = (r.events + 0.5) / (r.trials + 1)
    return p * (1 - p) / r.trials


def _pp(x: float) -> str:
    return f"{abs(x) * 100:.1f}"


def _statement(
    est: float, low: float, high: float, p_value: float, small: list[tuple[str, Rate]], min_trials: int
) -> str:
    interval = f"95% interval {low * 100:+.1f} to {high * 100:+.1f} points"
    if small:
        cells = ", ".join(f"{name} ({r.trials})" for name, r in small)
        return (
            f"Too few claims to say: fewer than {min_trials} in {cells}. The estimate, {est * 100:+.1f} "
            f"percentage points ({interval}), is not reliable. {PARALLEL}"
        )
    if low <= 0 <= high:
        return (
            f"The treated group's rate changed by {est * 100:+.1f} percentage points relative to the comparison "
            f"group ({interval}): not distinguishable from no effect; any change within that interval, including "
            f"none, fits the data. {PARALLEL}"
        )
    direction = "lower" if est < 0 else "higher"
    return (
        f"The treated group's rate ended {_pp(est)} percentage points {direction} than the comparison group's "
        f"change predicts ({interval}; p = {p_value:.3g}). {PARALLEL}"
    )


def difference_in_differences(
    treated_before: Counts,
    treated_after: Counts,
    control_before: Counts,
    control_after: Counts,
    *,
    min_trials: int = DEFAULT_MIN_TRIALS,
) -> DiD:
    """(treated after - treated before) - (control after - control before), on rates.

    Standard error: sqrt of the sum over the four cells of p(1-p)/n, treating them as independent
    binomial samples (different claims in each cell) with the normal approximation; 95% interval
    estimate ± 1.96 SE, z = estimate / SE, two-sided p-value from the normal distribution (difference-in-
    differences on proportions: Angrist & Pischke 2009, ch. 5; the variance of a sum of independent rates).

    Continuity correction, variance only: a cell with rate 0 or 1 has p(1-p)/n = 0, which would claim that
    cell's rate is known exactly (4 denials out of 4 claims is not certainty). For such a cell the variance
    term uses p = (k + 0.5)/(n + 1) instead (the Haldane-Anscombe style half-event correction); the estimate
    itself always uses the observed rates k/n.

    A cell with no trials gives all numbers None. A cell with fewer than `min_trials` trials gives the
    numbers but `significant` False and a statement that there are too few claims to say.
    """
    if isinstance(min_trials, bool) or not isinstance(min_trials, int) or min_trials < 1:
        raise ValueError(f"min_trials must be a positive int, got {min_trials!r}")
    cells = (
        ("treated before", _rate_of(treated_before, "treated_before")),
        ("treated after", _rate_of(treated_after, "treated_after")),
        ("control before", _rate_of(control_before, "control_before")),
        ("control after", _rate_of(control_after, "control_after")),
    )
    tb, ta, cb, ca = (r for _, r in cells)
    n_total = sum(r.trials for _, r in cells)
    empty = [name for name, r in cells if r.trials == 0]
    small = [(name, r) for name, r in cells if r.trials < min_trials]
    enough = not small
    if empty:
        statement = f"Cannot estimate: no claims in {', '.join(empty)}. {PARALLEL}"
        return DiD(None, None, None, None, None, None, False, enough, min_trials, tb, ta, cb, ca, n_total, statement)
    assert tb.rate is not None and ta.rate is not None and cb.rate is not None and ca.rate is not None
    estimate = (ta.rate - tb.rate) - (ca.rate - cb.rate)
    se = math.sqrt(sum(_variance_term(r) for _, r in cells))
    low, high = estimate - Z_CRIT * se, estimate + Z_CRIT * se
    z = estimate / se
    p_value = two_sided_p(z)
    significant = enough and p_value < ALPHA
    statement = _statement(estimate, low, high, p_value, small, min_trials)
    return DiD(estimate, se, low, high, z, p_value, significant, enough, min_trials, tb, ta, cb, ca, n_total, statement)


@dataclass(frozen=True)
class IndependentDifference:
    """first - second of two independent estimates: se = sqrt(se1² + se2²), a normal 95% interval and a
    two-sided p-value (Altman & Bland 2003, "Interaction revisited: the difference between two estimates",
    BMJ 326:219)."""

    estimate: float
    standard_error: float
    ci_low: float
    ci_high: float
    p_value: float
    significant: bool


def independent_difference(first: float, first_se: float, second: float, second_se: float) -> IndependentDifference:
    """The difference of two independent estimates with its interval. Correlated estimates (sharing claims
    or studies) make the interval too wide, never too narrow; the caller says so."""
    estimate = first - second
    se = math.sqrt(first_se**2 + second_se**2)
    low, high = estimate - Z_CRIT * se, estimate + Z_CRIT * se
    p_value = two_sided_p(estimate / se) if se > 0 else (1.0 if estimate == 0 else 0.0)
    return IndependentDifference(estimate, se, low, high, p_value, p_value < ALPHA)
