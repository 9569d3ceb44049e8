"""US federal business days (pure, no I/O).

The holidays are a rule table (5 U.S.C. 6103), not a dependency: fixed dates and "nth weekday of a
month" rules. A fixed-date holiday falling on a Saturday is observed the Friday before, on a Sunday
the Monday after (Executive Order 11582), so New Year's Day 2022 (a Saturday) is observed on Friday
31 December 2021: observed days are attributed to the year they fall in.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

# (name, month, day, first year in force); observed with the weekend shift
FIXED_HOLIDAYS: tuple[tuple[str, int, int, int], ...] = (
    ("new_years_day", 1, 1, 1870),
    ("juneteenth", 6, 19, 2021),
    ("independence_day", 7, 4, 1870),
    ("veterans_day", 11, 11, 1938),
    ("christmas_day", 12, 25, 1870),
)
# (name, month, weekday Mon=0, nth occurrence; -1 = the last)
FLOATING_HOLIDAYS: tuple[tuple[str, int, int, int], ...] = (
    ("martin_luther_king_jr_day", 1, 0, 3),
    ("washingtons_birthday", 2, 0, 3),
    ("memorial_day", 5, 0, -1),
    ("labor_day", 9, 0, 1),
    ("columbus_day", 10, 0, 2),
    ("thanksgiving_day", 11, 3, 4),
)
# Before these years the floating rules above did not hold (Uniform Monday Holiday Act 1971, MLK 1986).
_FLOATING_FROM = {"martin_luther_king_jr_day": 1986}
_EARLIEST_YEAR = 1971

SATURDAY, SUNDAY = 5, 6
#: The span deadlines are computed in: far enough from date.max that no limit overflows.
EARLIEST = date(1900, 1, 1)
LATEST = date(2199, 12, 31)


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date:
    """The nth given weekday of a month (nth=-1: the last one)."""
    if nth > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    following = date(year + (month == 12), month % 12 + 1, 1)
    last = following - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def observed(day: date) -> date:
    """The day a fixed-date federal holiday is observed on."""
    if day.weekday() == SATURDAY:
        return day - timedelta(days=1)
    if day.weekday() == SUNDAY:
        return day + timedelta(days=1)
    return day


@lru_cache(maxsize=512)
def federal_holidays(year: int) -> dict[date, str]:
    """The observed federal holidays that fall in ``year`` (date -> holiday name)."""
    found: dict[date, str] = {}
    if year < _EARLIEST_YEAR:
        return found
    # the next year's New Year's Day can be observed on 31 December of this one
    for source_year in (year, year + 1):
        for name, month, day, since in FIXED_HOLIDAYS:
            if source_year >= since:
                shifted = observed(date(source_year, month, day))
                if shifted.year == year:
                    found[shifted] = name
    for name, month, weekday, nth in FLOATING_HOLIDAYS:
        if year >= _FLOATING_FROM.get(name, _EARLIEST_YEAR):
            found[nth_weekday(year, month, weekday, nth)] = name
    return found


def is_holiday(day: date) -> bool:
    return day in federal_holidays(day.year)


def is_business_day(day: date) -> bool:
    """Monday to Friday and not an observed federal holiday."""
    return day.weekday() < SATURDAY and not is_holiday(day)


def next_business_day_on_or_after(day: date) -> date:
    """``day`` itself when it is a business day, else the first business day after it."""
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def add_business_days(start: date, days: int) -> date:
    """The ``days``-th business day after ``start`` (``start`` itself is day 0 and is never counted)."""
    if days < 0:
        raise ValueError("days must be >= 0")
    day = start
    remaining = days
    while remaining:
        day += timedelta(days=1)
        if is_business_day(day):
            remaining -= 1
    return day


def business_days_between(start: date, end: date) -> int:
    """Business days in (start, end]: how many working days are left from ``start`` until ``end``.

    Negative when ``end`` is before ``start`` (the business days in (end, start], negated)."""
    if end < start:
        return -business_days_between(end, start)
    count = 0
    day = start
    # whole weeks hold 5 weekdays; only holidays need a look-up, so long spans stay cheap
    weeks, rest = divmod((end - start).days, 7)
    count += 5 * weeks
    for year in range(start.year, end.year + 1):
        count -= sum(1 for h in federal_holidays(year) if start < h <= start + timedelta(days=7 * weeks))
    day = start + timedelta(days=7 * weeks)
    for _ in range(rest):
        day += timedelta(days=1)
        if is_business_day(day):
            count += 1
    return count
