"""How long a client keeps its evidence documents (pure, no I/O).

Each client keeps documents `years` whole years from the day they were attached (default
`DEFAULT_YEARS`, changed with evidenceControl.setRetention). A document attached on 29 February
expires on 28 February of its last year. A purge as of a day removes the documents whose expiry is
on or before that day; it may not look into the future.
"""

from __future__ import annotations

from datetime import date

DEFAULT_YEARS = 7
MIN_YEARS = 1
MAX_YEARS = 100


def add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February into a year without one
        return day.replace(year=day.year + years, day=28)


def expires_on(attached_on: date, years: int) -> date:
    return add_years(attached_on, years)


def is_expired(attached_on: date, years: int, as_of: date) -> bool:
    return expires_on(attached_on, years) <= as_of
