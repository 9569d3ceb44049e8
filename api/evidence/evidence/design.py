"""Which claims an intervention's evidence counts, and in which period (pure, no I/O).

An intervention acts on a cell of the marts (`Scope`: payer, denial category, CARC, service line,
facility; None = every value) from a start date on. Its evidence compares the cell's outcome rate
(claims denied with the scope's category, and CARC when given, over all claims of the treated slice)
in the months before the start with the months after it, and, against the same change in comparable
untreated cells, estimates a difference-in-differences (estimators.py; Card & Krueger 1994, Angrist &
Pischke 2009 ch. 5).

- Windows: before = [start month - monthsBefore, start month), after = [start month, start month +
  monthsAfter). The start date's own month belongs to "after": the mart counts by adjudication month, so
  a month cannot be split at the start day, and counting the cut-over month as treated is the
  conservative choice (it dilutes, never inflates, the effect).
- Treated slice: rows matching the scope's payer, service line and facility where given. The category
  and CARC define the outcome, not the slice: a claim denied for another reason, or paid, is a trial.
- Comparison ("same payer class and category, other service lines or facilities"): rows of the scope
  payer's payer class (any class when the scope names no payer), outside the treated slice, whose
  service line or facility differs from the scope's. A scope naming neither a service line nor a
  facility has no comparison group: every other cell would be another payer or the same cells, so the
  answer is a before/after only and says so.
- Comparing two evidence records: the difference of their estimates, with the two taken as
  independent: se = sqrt(se1^2 + se2^2), normal 95% interval (the variance of a difference of
  independent estimates).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from api.evidence.evidence.estimators import Change, Counts, independent_difference

MIN_MONTHS, MAX_MONTHS = 1, 24
Period = Literal["before", "after"]


def month_of(day: date) -> date:
    """The first day of `day`'s month."""
    return day.replace(day=1)


def add_months(month: date, n: int) -> date:
    """The first day of the month `n` months after (or before, n < 0) `month`'s month."""
    index = month.year * 12 + (month.month - 1) + n
    return date(index // 12, index % 12 + 1, 1)


@dataclass(frozen=True)
class Windows:
    """The before and after periods, as first days of months; `*_until` is excluded."""

    start_month: date
    months_before: int
    months_after: int

    @property
    def before_from(self) -> date:
        return add_months(self.start_month, -self.months_before)

    @property
    def before_last(self) -> date:
        return add_months(self.start_month, -1)

    @property
    def after_from(self) -> date:
        return self.start_month

    @property
    def after_last(self) -> date:
        return add_months(self.start_month, self.months_after - 1)

    @property
    def after_until(self) -> date:
        return add_months(self.start_month, self.months_after)

    def period(self, month: date) -> Period | None:
        """Which period an adjudication month falls in, or None outside both."""
        month = month_of(month)
        if self.before_from <= month < self.start_month:
            return "before"
        if self.start_month <= month < self.after_until:
            return "after"
        return None


def windows(start_date: date, months_before: int, months_after: int) -> Windows:
    """The windows around `start_date`; its month is the first month of "after"."""
    for name, value in (("monthsBefore", months_before), ("monthsAfter", months_after)):
        if isinstance(value, bool) or not isinstance(value, int) or not MIN_MONTHS <= value <= MAX_MONTHS:
            raise ValueError(f"{name} must be a whole number of months from {MIN_MONTHS} to {MAX_MONTHS}")
    return Windows(month_of(start_date), months_before, months_after)


@dataclass(frozen=True)
class Scope:
    payer_key: str | None
    category: str
    carc: str | None
    service_line: str | None
    facility: str | None


@dataclass(frozen=True)
class CellRow:
    """One row of fct_denial_cells_monthly (the dimensions the evidence needs and its claim count)."""

    month: date
    payer_key: str | None
    payer_class: str | None
    service_line: str | None
    facility: str | None
    denial_category: str | None
    carc: str | None
    claims: int


def _same(value: str | None, wanted: str) -> bool:
    return value is not None and value.upper() == wanted.upper()


def in_treated(row: CellRow, scope: Scope) -> bool:
    """The row is in the treated slice: the scope's payer, service line and facility where given."""
    return (
        (scope.payer_key is None or _same(row.payer_key, scope.payer_key))
        and (scope.service_line is None or row.service_line == scope.service_line)
        and (scope.facility is None or row.facility == scope.facility)
    )


def has_comparison(scope: Scope) -> bool:
    """A comparison group exists only when the scope names a service line or a facility."""
    return scope.service_line is not None or scope.facility is not None


def in_control(row: CellRow, scope: Scope, payer_class: str | None) -> bool:
    """The row is a comparable untreated cell: the payer class of the scope's payer (any class without a
    payer; none when that payer's class is unknown), not treated, another service line or facility."""
    if not has_comparison(scope) or in_treated(row, scope):
        return False
    if scope.payer_key is not None and (payer_class is None or row.payer_class != payer_class):
        return False
    return (scope.service_line is not None and row.service_line != scope.service_line) or (
        scope.facility is not None and row.facility != scope.facility
    )


def is_outcome(row: CellRow, scope: Scope) -> bool:
    """The row's claims were denied with the scope's category (and its CARC when the scope names one)."""
    return row.denial_category == scope.category and (scope.carc is None or _same(row.carc, scope.carc))


@dataclass(frozen=True)
class Tally:
    """(events, trials) of the four cells; the control cells are None without a comparison group."""

    treated_before: Counts
    treated_after: Counts
    control_before: Counts | None
    control_after: Counts | None


def tally(rows: Iterable[CellRow], scope: Scope, w: Windows, payer_class: str | None) -> Tally:
    """Outcome claims and all claims of the treated and comparison slices in each period."""
    counts = {(g, p): [0, 0] for g in ("treated", "control") for p in ("before", "after")}
    for row in rows:
        period = w.period(row.month)
        if period is None:
            continue
        group = "treated" if in_treated(row, scope) else "control" if in_control(row, scope, payer_class) else None
        if group is None:
            continue
        cell = counts[(group, period)]
        cell[1] += row.claims
        if is_outcome(row, scope):
            cell[0] += row.claims

    def pair(group: str, period: str) -> Counts:
        events, trials = counts[(group, period)]
        return (events, trials)

    control = has_comparison(scope)
    return Tally(
        pair("treated", "before"),
        pair("treated", "after"),
        pair("control", "before") if control else None,
        pair("control", "after") if control else None,
    )


NO_COMPARISON = (
    "No comparison group: the scope names neither a service line nor a facility, so there are no untreated "
    "cells of the same payer class and category to compare with, and no difference-in-differences."
)


def _rate_text(events: int, trials: int, rate: float | None) -> str:
    return f"{events}/{trials} claims" if rate is None else f"{rate * 100:.1f}% ({events}/{trials} claims)"


def change_text(what: str, change: Change) -> str:
    """One sentence: a group's rate before and after and the change with its interval."""
    b, a = change.before, change.after
    text = f"{what}: {_rate_text(b.events, b.trials, b.rate)} before, {_rate_text(a.events, a.trials, a.rate)} after"
    if change.difference is None or change.ci_low is None or change.ci_high is None:
        return f"{text}; {change.reason}."
    return (
        f"{text}, a change of {change.difference * 100:+.1f} points (95% interval {change.ci_low * 100:+.1f} to "
        f"{change.ci_high * 100:+.1f})."
    )


def statement(treated: Change, control: Change | None, did_statement: str | None) -> str:
    """The plain statement of one evidence record."""
    parts = [change_text("Treated", treated)]
    if control is None or did_statement is None:
        parts.append(NO_COMPARISON)
        parts.append(
            "The before/after change alone cannot separate the intervention from anything else that "
            "changed between the two periods (payer policy, case mix)."
        )
    else:
        parts.append(change_text("Comparison", control))
        parts.append(did_statement)
    return " ".join(parts)


@dataclass(frozen=True)
class Difference:
    """first - second of two difference-in-differences estimates, taken as independent."""

    estimate: float | None
    standard_error: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    significant: bool
    statement: str


def compare(first: float | None, first_se: float | None, second: float | None, second_se: float | None) -> Difference:
    """Difference of two estimates with se = sqrt(se1^2 + se2^2) and a normal 95% interval."""
    if first is None or second is None or first_se is None or second_se is None:
        missing = " and ".join(n for n, v in (("the first", first), ("the second", second)) if v is None) or "one"
        return Difference(
            None,
            None,
            None,
            None,
            None,
            False,
            f"Cannot compare: {missing} record has no difference-in-differences estimate.",
        )
    d = independent_difference(first, first_se, second, second_se)
    estimate, se, low, high = d.estimate, d.standard_error, d.ci_low, d.ci_high
    p_value, significant = d.p_value, d.significant
    interval = f"95% interval {low * 100:+.1f} to {high * 100:+.1f} points"
    if significant:
        verdict = f"the two estimates differ (p = {p_value:.3g})"
    else:
        verdict = "not distinguishable: any difference within that interval, including none, fits the data"
    return Difference(
        estimate,
        se,
        low,
        high,
        p_value,
        significant,
        f"The first estimate minus the second is {estimate * 100:+.1f} percentage points ({interval}): {verdict}. "
        "The two are treated as independent; records that share claims (the same cells or overlapping months) "
        "are positively correlated, and then this interval is too wide, not too narrow.",
    )
