"""The weekly bucketing of the recovery team's work (pure): worked examples by hand and Hypothesis
properties (an owner's backlog = previous + opened + reopened - closed + moved in - moved out; the total
conserved; the backlog equals a recount of each case's owner and state at the week's end)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.intelligence.revenue_operations.weekly import MAX_WEEKS, Event, bucket, iso_week, mondays

MON = date(2026, 3, 2)  # a Monday (ISO week 2026-W10)


def ev(case_id: int, day: date, kind: str, seq: int = 0, **values) -> Event:
    at = datetime(day.year, day.month, day.day, 12, tzinfo=UTC) + timedelta(seconds=seq)
    return Event(case_id=case_id, at=at, day=day, kind=kind, seq=seq, **values)


def test_a_week_worked_by_hand():
    # case 1: opened Monday unassigned, given to 7 on Tuesday, decided lost by 7 on Thursday (3 days open);
    # case 2: opened the week before for 7, moved to 8 on Wednesday, still open;
    # case 3: opened Friday, never assigned; an appeal of case 2 won 120.00 while 8 owns it.
    events = [
        ev(1, MON, "opened", owner=None, working=True),
        ev(1, MON + timedelta(1), "owner", 1, owner=7),
        ev(1, MON + timedelta(3), "state", 2, working=False),
        ev(2, MON - timedelta(3), "opened", owner=7, working=True),
        ev(2, MON + timedelta(2), "owner", 3, owner=8),
        ev(2, MON + timedelta(4), "outcome", 4, decision="won", amount=Decimal("120.00")),
        ev(3, MON + timedelta(4), "opened", owner=None, working=True),
    ]
    weeks = bucket(events, mondays(MON, MON + timedelta(days=6)))
    assert weeks.starting_backlog == {7: 1}
    week = weeks.figures[MON]
    assert (week[None].opened, week[None].moved_out, week[None].backlog) == (2, 1, 1)
    seven = week[7]
    assert (seven.moved_in, seven.moved_out, seven.closed, seven.backlog, seven.median_days_open) == (1, 1, 1, 0, 3.0)
    eight = week[8]
    assert (eight.moved_in, eight.backlog, eight.won, eight.recovered) == (1, 1, 1, Decimal("120.00"))
    assert weeks.total_backlog(MON) == 2


def test_reopened_cases_come_back_and_medians_count_from_the_first_opening():
    events = [
        ev(1, MON, "opened", owner=5, working=True),
        ev(1, MON + timedelta(1), "state", 1, working=False),
        ev(1, MON + timedelta(8), "state", 2, working=True),
        ev(1, MON + timedelta(12), "state", 3, working=False),
        ev(2, MON, "opened", owner=5, working=True),
        ev(2, MON + timedelta(5), "state", 1, working=False),
    ]
    first, second = mondays(MON, MON + timedelta(days=13))
    weeks = bucket(events, [first, second])
    assert weeks.figures[first][5].closed == 2 and weeks.figures[first][5].median_days_open == 3.0  # (1 + 5) / 2
    assert weeks.figures[second][5].reopened == 1 and weeks.figures[second][5].days_open == [12]
    assert weeks.total_backlog(first) == weeks.total_backlog(second) == 0


def test_weeks_are_iso_weeks_and_capped():
    assert iso_week(date(2026, 1, 1)) == "2026-W01" and iso_week(date(2027, 1, 1)) == "2026-W53"
    assert mondays(date(2026, 3, 4), date(2026, 3, 9)) == (MON, MON + timedelta(7))
    assert len(mondays(MON, MON + timedelta(weeks=MAX_WEEKS - 1))) == MAX_WEEKS
    with pytest.raises(ValueError, match="at most 104 weeks"):
        mondays(MON, MON + timedelta(weeks=MAX_WEEKS))
    with pytest.raises(ValueError, match="must not be after"):
        mondays(MON, MON - timedelta(days=1))


def test_events_after_the_range_are_ignored():
    events = [ev(1, MON + timedelta(days=7), "opened", owner=1, working=True)]
    weeks = bucket(events, mondays(MON, MON))
    assert weeks.figures[MON] == {} and weeks.starting_backlog == {}


OWNERS = st.sampled_from([None, 1, 2, 3])


@st.composite
def histories(draw):
    """Random case histories over five weeks around MON: an opening, then assignments and state moves."""
    events, seq = [], 0
    for case_id in range(draw(st.integers(0, 12))):
        day = MON + timedelta(days=draw(st.integers(-10, 30)))
        events.append(ev(case_id, day, "opened", seq, owner=draw(OWNERS), working=draw(st.booleans())))
        for _ in range(draw(st.integers(0, 6))):
            seq += 1
            day = day + timedelta(days=draw(st.integers(0, 5)))
            if draw(st.booleans()):
                events.append(ev(case_id, day, "owner", seq, owner=draw(OWNERS)))
            else:
                events.append(ev(case_id, day, "state", seq, working=draw(st.booleans())))
        seq += 1
    return events


def recount(events: list[Event], day: date) -> dict:
    """Each case's owner and state at the end of `day`, replayed case by case (a second way to count)."""
    owner, working = {}, {}
    for e in sorted(events, key=lambda e: (e.at, e.seq)):
        if e.day > day:
            continue
        if e.kind == "opened":
            owner[e.case_id], working[e.case_id] = e.owner, e.working
        elif e.kind == "owner":
            owner[e.case_id] = e.owner
        elif e.kind == "state":
            working[e.case_id] = e.working
    counts: dict = {}
    for case_id, is_working in working.items():
        if is_working:
            counts[owner[case_id]] = counts.get(owner[case_id], 0) + 1
    return counts


@settings(max_examples=200, deadline=None)
@given(histories())
def test_backlog_is_previous_plus_flows_and_totals_are_conserved(events):
    weeks = bucket(events, mondays(MON, MON + timedelta(days=27)))
    previous = dict(weeks.starting_backlog)
    for monday in weeks.mondays:
        week = weeks.figures[monday]
        for who in set(previous) | set(week):
            f = week.get(who)
            flows = 0 if f is None else f.opened + f.reopened - f.closed + f.moved_in - f.moved_out
            assert (0 if f is None else f.backlog) == previous.get(who, 0) + flows
        assert sum(f.moved_in for f in week.values()) == sum(f.moved_out for f in week.values())
        opened = sum(f.opened + f.reopened - f.closed for f in week.values())
        assert weeks.total_backlog(monday) == sum(previous.values()) + opened
        assert {w: f.backlog for w, f in week.items() if f.backlog} == recount(events, monday + timedelta(days=6))
        previous = {w: f.backlog for w, f in week.items() if f.backlog}
