"""Versions of one payer fact: a new version closes the previous one (never deletes it); the spans never
overlap. Dates worked out by hand in the comments."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.core.errors import Conflict, InvalidInput
from api.intelligence.payer_knowledge import versions
from api.intelligence.payer_knowledge.service import like_literal
from api.intelligence.payer_knowledge.versions import Placement, Span


def test_a_new_version_closes_the_open_one_the_day_before_it_starts():
    # portal from 2026-01-01, open-ended; a new one from 2026-03-15 closes it on 2026-03-14
    placed = versions.place([Span(1, date(2026, 1, 1), None)], date(2026, 3, 15))
    assert placed == Placement(None, ((1, date(2026, 3, 14)),))


def test_the_first_version_closes_nothing_and_keeps_its_given_end():
    assert versions.place([], date(2026, 1, 1)) == Placement(None, ())
    assert versions.place([], date(2026, 1, 1), date(2026, 6, 30)) == Placement(date(2026, 6, 30), ())


def test_a_version_from_the_first_of_march_closes_the_previous_on_the_last_day_of_february():
    # 2028 is a leap year: the day before 2028-03-01 is 2028-02-29
    placed = versions.place([Span(7, date(2027, 5, 1), None)], date(2028, 3, 1))
    assert placed.closes == ((7, date(2028, 2, 29)),)


def test_a_backdated_version_ends_the_day_before_the_later_one_and_closes_the_earlier():
    # versions from 2026-01-01 (closed 2026-05-31) and 2026-06-01 (open); a correction from 2026-04-01:
    # the first is closed on 2026-03-31, the correction ends 2026-05-31 (the day before June 1st)
    stored = [Span(1, date(2026, 1, 1), date(2026, 5, 31)), Span(2, date(2026, 6, 1), None)]
    assert versions.place(stored, date(2026, 4, 1)) == Placement(date(2026, 5, 31), ((1, date(2026, 3, 31)),))


def test_an_earlier_version_that_already_ended_before_is_left_alone():
    # a fax number in force 2025-01-01..2025-06-30, nothing since: a new one from 2026-01-01 closes nothing
    placed = versions.place([Span(3, date(2025, 1, 1), date(2025, 6, 30))], date(2026, 1, 1))
    assert placed == Placement(None, ())


def test_the_same_start_is_a_conflict_and_an_end_before_the_start_is_refused():
    with pytest.raises(Conflict, match="2026-01-01"):
        versions.place([Span(1, date(2026, 1, 1), None)], date(2026, 1, 1))
    with pytest.raises(InvalidInput, match="effectiveTo"):
        versions.place([], date(2026, 2, 1), date(2026, 1, 31))


def test_an_end_that_overlaps_a_later_version_is_refused_naming_the_last_day_allowed():
    # a later version from 2026-06-01: the backdated one may end on 2026-05-31 at the latest
    with pytest.raises(InvalidInput, match="2026-05-31"):
        versions.place([Span(2, date(2026, 6, 1), None)], date(2026, 4, 1), date(2026, 6, 1))


def test_current_is_the_version_in_force_on_the_day():
    spans = [Span(1, date(2026, 1, 1), date(2026, 3, 14)), Span(2, date(2026, 3, 15), None)]
    assert versions.current(spans, date(2026, 3, 14)) == spans[0]
    assert versions.current(spans, date(2026, 3, 15)) == spans[1]
    assert versions.current(spans, date(2025, 12, 31)) is None


def test_like_literal_escapes_the_wildcards_and_the_escape_character():
    assert like_literal("50%") == "50/%"
    assert like_literal("a_b") == "a/_b"
    assert like_literal("x/y") == "x//y"
    assert like_literal("%_/") == "/%/_//"


DAY0 = date(2026, 1, 1)


def _apply(spans: list[Span], start: date, new_id: int) -> list[Span]:
    """What the service does with a placement: close what it says, add the new version."""
    placed = versions.place(spans, start)
    closing = dict(placed.closes)
    kept = [Span(s.id, s.effective_from, closing.get(s.id, s.effective_to)) for s in spans]
    return [*kept, Span(new_id, start, placed.effective_to)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3650), min_size=1, max_size=30, unique=True))
def test_any_order_of_open_ended_versions_gives_one_version_in_force_each_day_the_latest_started(offsets):
    spans: list[Span] = []
    for n, offset in enumerate(offsets, start=1):
        spans = _apply(spans, DAY0 + timedelta(days=offset), n)
    # nothing was deleted, every start kept
    assert sorted(s.effective_from for s in spans) == sorted(DAY0 + timedelta(days=o) for o in offsets)
    ordered = sorted(spans, key=lambda s: s.effective_from)
    for before, after in pairwise(ordered):
        # each version ends the day before the next starts: no gap, no overlap
        assert before.effective_to == after.effective_from - timedelta(days=1)
    assert ordered[-1].effective_to is None
    starts = sorted(DAY0 + timedelta(days=o) for o in offsets)
    for probe in (starts[0], starts[-1], starts[0] + timedelta(days=1), starts[-1] + timedelta(days=400)):
        in_force = [s for s in spans if versions.in_force(s, probe)]
        latest = max(s for s in starts if s <= probe)
        assert [s.effective_from for s in in_force] == [latest]
