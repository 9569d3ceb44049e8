"""US federal holidays and business-day arithmetic, against dates worked out by hand."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.business_calendar import (
    add_business_days,
    business_days_between,
    federal_holidays,
    is_business_day,
    next_business_day_on_or_after,
    nth_weekday,
)

D = date


def test_holidays_2024_all_on_their_own_day():
    assert sorted(federal_holidays(2024)) == [
        D(2024, 1, 1),
        D(2024, 1, 15),  # MLK: third Monday
        D(2024, 2, 19),  # Washington's Birthday: third Monday
        D(2024, 5, 27),  # Memorial Day: last Monday
        D(2024, 6, 19),
        D(2024, 7, 4),
        D(2024, 9, 2),  # Labor Day: first Monday
        D(2024, 10, 14),  # Columbus Day: second Monday
        D(2024, 11, 11),
        D(2024, 11, 28),  # Thanksgiving: fourth Thursday
        D(2024, 12, 25),
    ]


def test_observed_days_shift_off_weekends_2021():
    holidays = federal_holidays(2021)
    assert holidays[D(2021, 6, 18)] == "juneteenth"  # Saturday 19th -> Friday
    assert holidays[D(2021, 7, 5)] == "independence_day"  # Sunday 4th -> Monday
    assert holidays[D(2021, 12, 24)] == "christmas_day"  # Saturday 25th -> Friday
    # New Year's Day 2022 is a Saturday: observed Friday 31 December 2021
    assert holidays[D(2021, 12, 31)] == "new_years_day"
    assert len(holidays) == 12


def test_2022_has_no_january_holiday_on_the_first_and_sunday_shifts():
    holidays = federal_holidays(2022)
    assert D(2022, 1, 1) not in holidays
    assert D(2022, 6, 20) in holidays  # Sunday 19th -> Monday
    assert D(2022, 12, 26) in holidays  # Sunday 25th -> Monday
    assert len(holidays) == 10


def test_2023_sunday_new_year_and_saturday_veterans_day():
    holidays = federal_holidays(2023)
    assert D(2023, 1, 2) in holidays
    assert D(2023, 11, 10) in holidays


def test_juneteenth_only_from_2021():
    assert is_business_day(D(2020, 6, 19))
    assert D(2020, 7, 3) in federal_holidays(2020)  # Saturday 4 July 2020 -> Friday


def test_nth_weekday_last_monday_of_may():
    assert nth_weekday(2021, 5, 0, -1) == D(2021, 5, 31)
    assert nth_weekday(2024, 12, 2, -1) == D(2024, 12, 25)  # last Wednesday of December


def test_add_business_days_skips_weekends_and_holidays():
    # Fri 14 June 2024 + 10: Jun 17, 18, (19 Juneteenth), 20, 21, 24, 25, 26, 27, 28, Jul 1
    assert add_business_days(D(2024, 6, 14), 10) == D(2024, 7, 1)
    # Fri 20 Dec 2024 + 5: Dec 23, 24, (25), 26, 27, 30
    assert add_business_days(D(2024, 12, 20), 5) == D(2024, 12, 30)
    assert add_business_days(D(2024, 12, 20), 0) == D(2024, 12, 20)
    with pytest.raises(ValueError):
        add_business_days(D(2024, 1, 1), -1)


def test_next_business_day_over_weekend_and_labor_day():
    assert next_business_day_on_or_after(D(2024, 8, 31)) == D(2024, 9, 3)  # Sat, Sun, Labor Day Mon
    assert next_business_day_on_or_after(D(2024, 9, 4)) == D(2024, 9, 4)


def test_business_days_between_hand_counts():
    # (1 Jan, 31 Jan] 2024: 22 weekdays after New Year's Day, minus MLK Day
    assert business_days_between(D(2024, 1, 1), D(2024, 1, 31)) == 21
    assert business_days_between(D(2024, 12, 20), D(2024, 12, 30)) == 5
    assert business_days_between(D(2024, 12, 30), D(2024, 12, 20)) == -5
    assert business_days_between(D(2024, 5, 3), D(2024, 5, 3)) == 0
    # a holiday exactly seven days after the start is inside the whole week and not counted
    assert business_days_between(D(2024, 11, 21), D(2024, 11, 28)) == 4


dates = st.dates(min_value=D(1990, 1, 1), max_value=D(2090, 12, 31))


@given(dates, st.integers(min_value=0, max_value=400))
def test_business_days_between_inverts_add(start, n):
    assert business_days_between(start, add_business_days(start, n)) == n


@given(dates, dates)
def test_business_days_between_matches_a_day_by_day_count(a, b):
    if abs((b - a).days) > 800:
        b = a + timedelta(days=(b - a).days % 800)
    lo, hi = min(a, b), max(a, b)
    count = sum(1 for i in range(1, (hi - lo).days + 1) if is_business_day(lo + timedelta(days=i)))
    assert business_days_between(lo, hi) == count


@given(st.integers(min_value=1971, max_value=2100))
def test_observed_holidays_are_weekdays(year):
    assert all(day.weekday() < 5 and day.year == year for day in federal_holidays(year))


@given(dates, st.integers(min_value=1, max_value=300))
def test_added_business_day_is_a_business_day(start, n):
    assert is_business_day(add_business_days(start, n))
