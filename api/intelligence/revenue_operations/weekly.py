"""The recovery team's work by ISO week and specialist, from plain event records (pure, no I/O).

A case is in the backlog while it is in a working state (open, triaged, in_appeal, awaiting_payer:
`api/denials/cases/lifecycle.py`); it leaves it when it is decided or closed ("closed" here) and comes
back when it is reopened. Each event is credited to the case's owner at that moment (None:
unassigned), so an owner's backlog at a week's end is

    backlog(previous week) + opened + reopened - closed + moved_in - moved_out

(a reassignment moves the case from one owner's backlog to another's; the total is conserved). Weeks
are ISO 8601 weeks (Monday to Sunday) of the client's calendar: the caller gives days in the client's
time zone. The days a closed case was open run from the day it was opened to the day it closed
(a reopened case counts from its first opening).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

#: At most two years of weeks per answer (104): a request never replays an unbounded calendar.
MAX_WEEKS = 104
WON = frozenset({"won", "partially_won"})
LOST = frozenset({"lost"})
ZERO = Decimal("0.00")

Owner = int | None


@dataclass(frozen=True)
class Event:
    """One thing that happened to a case, as plain values.

    kind: ``opened`` (owner and working given: the case's state when it was opened), ``owner`` (the
    owner after an assignment), ``state`` (whether the case is in a working state after the move) or
    ``outcome`` (a payer's decision recorded on the case: decision and amount recovered). ``at`` orders
    the events (its ``seq`` breaks ties); ``day`` is the client's calendar day of ``at``."""

    case_id: int
    at: datetime
    day: date
    kind: str
    seq: int = 0
    owner: Owner = None
    working: bool | None = None
    decision: str | None = None
    amount: Decimal = ZERO


@dataclass
class WeekFigures:
    """What one owner's backlog and throughput did in one week."""

    opened: int = 0
    reopened: int = 0
    closed: int = 0
    moved_in: int = 0
    moved_out: int = 0
    backlog: int = 0  # open cases at the week's end (Sunday, end of day)
    won: int = 0
    lost: int = 0
    recovered: Decimal = ZERO
    days_open: list[int] = field(default_factory=list)  # of each case closed in the week

    @property
    def median_days_open(self) -> float | None:
        return float(statistics.median(self.days_open)) if self.days_open else None

    @property
    def active(self) -> bool:
        return bool(
            self.opened or self.reopened or self.closed or self.moved_in or self.moved_out or self.won or self.lost
        )


@dataclass(frozen=True)
class Weeks:
    """Every week of the range: its Monday, each owner's figures, and the backlog the range started with."""

    mondays: tuple[date, ...]
    figures: dict[date, dict[Owner, WeekFigures]]
    starting_backlog: dict[Owner, int]

    def total_backlog(self, monday: date) -> int:
        return sum(f.backlog for f in self.figures[monday].values())


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def iso_week(day: date) -> str:
    """ "YYYY-Www" (ISO 8601) of the week holding `day`."""
    year, week, _ = day.isocalendar()
    return f"{year:04d}-W{week:02d}"


def mondays(first: date, last: date) -> tuple[date, ...]:
    """The Mondays of the weeks from the one holding `first` to the one holding `last`; ValueError past MAX_WEEKS."""
    if first > last:
        raise ValueError("the first day must not be after the last")
    start, end = monday_of(first), monday_of(last)
    count = (end - start).days // 7 + 1
    if count > MAX_WEEKS:
        raise ValueError(f"the range may span at most {MAX_WEEKS} weeks")
    return tuple(start + timedelta(weeks=n) for n in range(count))


@dataclass
class _Case:
    owner: Owner = None
    working: bool = False
    opened_on: date | None = None


class _Replay:
    """Applies the events in order and credits each change to the owner of the moment."""

    def __init__(self) -> None:
        self.cases: dict[int, _Case] = defaultdict(_Case)
        self.backlog: Counter[Owner] = Counter()

    def apply(self, e: Event, week: dict[Owner, WeekFigures] | None) -> None:
        case = self.cases[e.case_id]
        if e.kind == "opened":
            case.owner, case.working, case.opened_on = e.owner, bool(e.working), e.day
            if case.working:
                self.backlog[case.owner] += 1
                _at(week, case.owner).opened += 1
        elif e.kind == "owner":
            if case.working and case.owner != e.owner:
                self.backlog[case.owner] -= 1
                self.backlog[e.owner] += 1
                _at(week, case.owner).moved_out += 1
                _at(week, e.owner).moved_in += 1
            case.owner = e.owner
        elif e.kind == "state":
            self._state(case, bool(e.working), e.day, week)
        elif e.kind == "outcome":
            self._outcome(case, e, week)

    def _state(self, case: _Case, working: bool, day: date, week: dict[Owner, WeekFigures] | None) -> None:
        if case.working == working:
            return
        case.working = working
        figures = _at(week, case.owner)
        if working:
            self.backlog[case.owner] += 1
            figures.reopened += 1
        else:
            self.backlog[case.owner] -= 1
            figures.closed += 1
            figures.days_open.append((day - (case.opened_on or day)).days)

    @staticmethod
    def _outcome(case: _Case, e: Event, week: dict[Owner, WeekFigures] | None) -> None:
        figures = _at(week, case.owner)
        if e.decision in WON:
            figures.won += 1
        elif e.decision in LOST:
            figures.lost += 1
        figures.recovered += e.amount


def _at(week: dict[Owner, WeekFigures] | None, owner: Owner) -> WeekFigures:
    """The owner's figures of the week (a throw-away record for events before the range)."""
    if week is None:
        return WeekFigures()
    if owner not in week:
        week[owner] = WeekFigures()
    return week[owner]


def _order(e: Event) -> tuple[datetime, int, int]:
    return (e.at, 0 if e.kind == "opened" else 1, e.seq)


def bucket(events: Iterable[Event], weeks: Sequence[date]) -> Weeks:
    """Replay every event up to the last week's Sunday and bucket what happened by week and owner.

    Events before the first Monday only build the starting backlog; later ones are ignored. Each
    week lists every owner with an open case at its end or with anything done in it."""
    replay = _Replay()
    start = weeks[0]
    end = weeks[-1] + timedelta(days=6)
    ordered = sorted((e for e in events if e.day <= end), key=_order)
    figures: dict[date, dict[Owner, WeekFigures]] = {monday: {} for monday in weeks}
    index = 0
    while index < len(ordered) and ordered[index].day < start:
        replay.apply(ordered[index], None)
        index += 1
    starting = {owner: n for owner, n in replay.backlog.items() if n}
    for monday in weeks:
        sunday = monday + timedelta(days=6)
        week = figures[monday]
        while index < len(ordered) and ordered[index].day <= sunday:
            replay.apply(ordered[index], week)
            index += 1
        for owner, n in replay.backlog.items():
            if n:
                _at(week, owner).backlog = n
    return Weeks(tuple(weeks), figures, starting)
