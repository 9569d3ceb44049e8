"""The digital twin's parameters estimated from a client's case history (pure, no I/O).

The process the twin models (``process.py`` simulates it): denials arrive per payer x category as a Poisson
process; N specialists work one case at a time from one shared queue (first come, first served unless a
strategy reorders it); a case whose appeal deadline passes before anyone starts it is lost; a worked case takes
an exponentially distributed work time, then the payer decides it (success with the category's probability,
recovering the category's mean share of the amount at stake).

What each parameter's estimator is, with its 95% interval:

- arrival rate per payer x category (cases a week): k cases opened in w weeks, k / w, with the exact Poisson
  interval of Garwood (1936), chi2(0.025; 2k) / 2w .. chi2(0.975; 2k + 2) / 2w;
- success probability per category: k won or partially won of n decided (lost counts, withdrawn does not:
  never decided), the posterior mean of Jeffreys' prior, Beta(k + 1/2, n - k + 1/2), and its equal-tailed 95%
  interval (Brown, Cai & DasGupta 2001, "Interval estimation for a binomial proportion");
- work time per case (days): each specialist's decided cases in order of decision; a case's work began when it
  was opened or when the same specialist's previous decision came, whichever is later (a specialist works one
  case at a time, first come first served: the queueing recursion of Lindley 1952), so work = decided - start;
  the mean with Student's t 95% interval;
- team size: distinct owners of the cases decided in the window (counted, no interval);
- missed deadlines: of the cases whose appeal deadline fell in the window, those never decided nor ended before
  it; Jeffreys interval as above;
- amounts, deadlines (days from opening to the appeal deadline) and recovered share: the empirical values,
  resampled by the simulation (bootstrap).

History is read as it was known at ``as_of``: a decision after it is not yet known.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from scipy import stats

#: won and partially won are successes; lost is decided and failed; withdrawn was never decided.
SUCCESSES = frozenset({"won", "partially_won"})
DECIDED = frozenset({"won", "partially_won", "lost"})
QUARTER_DAYS = 91
NO_CATEGORY = "unclassified"


@dataclass(frozen=True)
class CaseRecord:
    """One case as the twin reads it (plain values, no identifiers of patients or claims)."""

    opened_on: date
    payer: str
    category: str
    amount: float
    owner: int | None = None
    due_on: date | None = None  # the appeal deadline
    decided_on: date | None = None  # the first decided (or withdrawn) appeal outcome
    decision: str | None = None  # won | partially_won | lost | withdrawn
    recovered: float = 0.0
    ended_on: date | None = None  # left the work without a decision (written off, closed)


@dataclass(frozen=True)
class Estimate:
    """A parameter with its estimator's name, 95% interval and the counts behind it."""

    value: float
    low: float
    high: float
    n: int
    estimator: str

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "estimator": self.estimator}


def garwood_rate(k: int, weeks: float) -> Estimate:
    """k events in ``weeks``: rate k / weeks with the exact Poisson (Garwood 1936) 95% interval."""
    low = 0.0 if k == 0 else float(stats.chi2.ppf(0.025, 2 * k)) / 2
    high = float(stats.chi2.ppf(0.975, 2 * k + 2)) / 2
    return Estimate(k / weeks, low / weeks, high / weeks, k, "Poisson rate, Garwood exact 95% interval")


def jeffreys(k: int, n: int) -> Estimate:
    """k of n: the Jeffreys posterior Beta(k + 1/2, n - k + 1/2) mean and equal-tailed 95% interval."""
    if not 0 <= k <= n:
        raise ValueError("need 0 <= k <= n")
    a, b = k + 0.5, n - k + 0.5
    low, high = (float(x) for x in stats.beta.ppf([0.025, 0.975], a, b))
    return Estimate(a / (a + b), low, high, n, "Jeffreys Beta(k+1/2, n-k+1/2) posterior mean, 95% interval")


def mean_t(values: Sequence[float]) -> Estimate:
    """The mean with Student's t 95% interval (the interval is the mean itself below two values)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = sum(values) / n
    if n < 2:
        return Estimate(mean, mean, mean, n, "sample mean (one value: no interval)")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return Estimate(mean, max(mean - half, 0.0), mean + half, n, "sample mean, Student t 95% interval")


def known_at(record: CaseRecord, as_of: date) -> CaseRecord:
    """The record as it was known at ``as_of`` (a later decision or ending not yet happened)."""
    decided = record.decided_on is not None and record.decided_on <= as_of
    ended = record.ended_on is not None and record.ended_on <= as_of
    return replace(
        record,
        decided_on=record.decided_on if decided else None,
        decision=record.decision if decided else None,
        recovered=record.recovered if decided else 0.0,
        ended_on=record.ended_on if ended else None,
    )


def end_of(record: CaseRecord) -> date | None:
    """The day the case left the backlog: decided, ended, or (never worked) its deadline passed."""
    if record.decided_on is not None:
        return record.decided_on
    if record.ended_on is not None:
        return record.ended_on
    return record.due_on


def in_backlog(record: CaseRecord, day: date) -> bool:
    """Opened by the end of ``day`` and not yet decided, ended or expired then."""
    end = end_of(record)
    return record.opened_on <= day and (end is None or end > day)


def backlog_at(records: Iterable[CaseRecord], day: date) -> list[CaseRecord]:
    """The cases in the backlog at the end of ``day``, oldest first (as known then)."""
    return sorted((r for r in (known_at(r, day) for r in records) if in_backlog(r, day)), key=lambda r: r.opened_on)


def recovered_between(records: Iterable[CaseRecord], first: date, last: date) -> float:
    """Money recovered by decisions from ``first`` to ``last`` (inclusive)."""
    return sum(r.recovered for r in records if r.decided_on is not None and first <= r.decided_on <= last)


def work_times(records: Iterable[CaseRecord]) -> list[tuple[CaseRecord, float]]:
    """Each decided case with the days it was worked (module docstring: Lindley's recursion per owner)."""
    by_owner: dict[int, list[CaseRecord]] = defaultdict(list)
    for r in records:
        if r.owner is not None and r.decided_on is not None:
            by_owner[r.owner].append(r)
    out: list[tuple[CaseRecord, float]] = []
    for cases in by_owner.values():
        previous: date | None = None
        for r in sorted(cases, key=lambda c: (c.decided_on, c.opened_on)):
            assert r.decided_on is not None
            start = r.opened_on if previous is None else max(r.opened_on, previous)
            out.append((r, float((r.decided_on - start).days)))
            previous = r.decided_on
    return out


@dataclass(frozen=True)
class Calibration:
    """The twin's parameters over [first, last] (as known at ``last``)."""

    first: date
    last: date
    weeks: float
    arrivals: dict[tuple[str, str], Estimate]  # (payer, category) -> cases a week
    success: dict[str, Estimate]  # category -> P(success)
    work_days: Estimate
    team_size: int
    missed_deadlines: Estimate
    amounts: dict[tuple[str, str], list[float]]  # the cell's amounts at stake (resampled)
    deadline_days: dict[tuple[str, str], list[int]]  # the cell's days from opening to the appeal deadline
    recovered_share: dict[str, float]  # category -> mean recovered / amount of its successes

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: what is stored with the twin and answered."""
        return {
            "first": self.first.isoformat(),
            "last": self.last.isoformat(),
            "weeks": self.weeks,
            "arrivals": [{"payer": p, "category": c, **e.as_dict()} for (p, c), e in sorted(self.arrivals.items())],
            "success": [{"category": c, **e.as_dict()} for c, e in sorted(self.success.items())],
            "workDays": self.work_days.as_dict(),
            "teamSize": self.team_size,
            "missedDeadlines": self.missed_deadlines.as_dict(),
            "amounts": [{"payer": p, "category": c, "values": v} for (p, c), v in sorted(self.amounts.items())],
            "deadlineDays": [
                {"payer": p, "category": c, "values": v} for (p, c), v in sorted(self.deadline_days.items())
            ],
            "recoveredShare": dict(sorted(self.recovered_share.items())),
        }


def _estimate(d: dict[str, Any]) -> Estimate:
    return Estimate(d["value"], d["low"], d["high"], d["n"], d["estimator"])


def from_dict(d: dict[str, Any]) -> Calibration:
    """A stored calibration back (``Calibration.as_dict``'s inverse)."""
    return Calibration(
        first=date.fromisoformat(d["first"]),
        last=date.fromisoformat(d["last"]),
        weeks=d["weeks"],
        arrivals={(a["payer"], a["category"]): _estimate(a) for a in d["arrivals"]},
        success={s["category"]: _estimate(s) for s in d["success"]},
        work_days=_estimate(d["workDays"]),
        team_size=d["teamSize"],
        missed_deadlines=_estimate(d["missedDeadlines"]),
        amounts={(a["payer"], a["category"]): list(a["values"]) for a in d["amounts"]},
        deadline_days={(a["payer"], a["category"]): list(a["values"]) for a in d["deadlineDays"]},
        recovered_share=dict(d["recoveredShare"]),
    )


class NotEnoughHistory(ValueError):
    """The window holds too little to calibrate (the message says what is missing)."""


def _missed(records: Sequence[CaseRecord], first: date, last: date) -> Estimate:
    """Of the cases whose deadline fell in [first, last], those neither decided nor ended before it."""
    due = [r for r in records if r.due_on is not None and first <= r.due_on <= last]
    missed = 0
    for r in due:
        assert r.due_on is not None
        if r.decided_on is None and (r.ended_on is None or r.ended_on >= r.due_on):
            missed += 1
    return jeffreys(missed, len(due))


Cell = tuple[str, str]


def _cells(window: Sequence[CaseRecord]) -> tuple[dict[Cell, int], dict[Cell, list[float]], dict[Cell, list[int]]]:
    """Per payer x category: cases opened, their amounts, their days to the appeal deadline."""
    counts: dict[Cell, int] = defaultdict(int)
    amounts: dict[Cell, list[float]] = defaultdict(list)
    deadlines: dict[Cell, list[int]] = defaultdict(list)
    for r in window:
        cell = (r.payer, r.category)
        counts[cell] += 1
        amounts[cell].append(round(r.amount, 2))
        if r.due_on is not None:
            deadlines[cell].append(max((r.due_on - r.opened_on).days, 0))
    return dict(counts), dict(amounts), dict(deadlines)


def _success(categories: Iterable[str], decided: Sequence[CaseRecord]) -> tuple[dict[str, Estimate], dict[str, float]]:
    """Per category: P(success) (Jeffreys) and the mean recovered share of a success (1 without one)."""
    success: dict[str, Estimate] = {}
    share: dict[str, float] = {}
    for category in sorted(set(categories) | {r.category for r in decided}):
        mine = [r for r in decided if r.category == category]
        won = [r for r in mine if r.decision in SUCCESSES]
        success[category] = jeffreys(len(won), len(mine))
        ratios = [r.recovered / r.amount for r in won if r.amount > 0]
        share[category] = sum(ratios) / len(ratios) if ratios else 1.0
    return success, share


def _work(records: Sequence[CaseRecord], first: date) -> tuple[list[CaseRecord], list[float], int]:
    """The cases decided from ``first`` on, their work days and how many owners decided them."""
    worked = [r for r in records if r.decided_on is not None and r.decided_on >= first]
    if not worked:
        raise NotEnoughHistory("no appeal outcome was recorded in the window (the work time cannot be estimated)")
    owners = {r.owner for r in worked if r.owner is not None}
    if not owners:
        raise NotEnoughHistory("no decided case in the window has an owner (the team size cannot be counted)")
    times = [t for r, t in work_times(records) if r.decided_on is not None and r.decided_on >= first]
    return worked, times, len(owners)


def calibrate(history: Iterable[CaseRecord], first: date, last: date) -> Calibration:
    """Estimate every parameter from the cases opened from ``first`` to ``last`` (as known at ``last``)."""
    if last < first:
        raise ValueError("the window ends before it starts")
    records = [known_at(r, last) for r in history if r.opened_on <= last]
    window = [r for r in records if r.opened_on >= first]
    weeks = ((last - first).days + 1) / 7
    counts, amounts, deadlines = _cells(window)
    if not counts:
        raise NotEnoughHistory("no case was opened in the window")
    worked, times, team = _work(records, first)
    success, share = _success((r.category for r in window), [r for r in worked if r.decision in DECIDED])
    return Calibration(
        first=first,
        last=last,
        weeks=weeks,
        arrivals={cell: garwood_rate(k, weeks) for cell, k in counts.items()},
        success=success,
        work_days=mean_t(times or [0.0]),
        team_size=team,
        missed_deadlines=_missed(records, first, last),
        amounts=amounts,
        deadline_days=deadlines,
        recovered_share=share,
    )
