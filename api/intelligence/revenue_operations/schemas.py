"""Inputs and outputs of revenueOperations.*."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Self

from pydantic import Field, model_validator

from api.infra.marts.serving import Money
from api.intelligence.revenue_operations.weekly import MAX_WEEKS, monday_of
from api.rpc.schema import Output, Schema

#: Days a range may name (the calendar of the platform's records, with room on both sides).
Day = Annotated[date, Field(ge=date(1970, 1, 1), le=date(2999, 12, 31))]


class WeekRangeIn(Schema):
    """The ISO weeks (Monday to Sunday, in the client's time zone) holding fromDate through toDate; at most
    104 weeks. Defaults: toDate the client's today, fromDate 11 weeks before it (12 weeks)."""

    from_date: Day | None = Field(default=None, description="A day of the first week (default: 11 weeks before toDate)")
    to_date: Day | None = Field(default=None, description="A day of the last week (default: the client's today)")

    @model_validator(mode="after")
    def _bounded(self) -> Self:
        if self.from_date and self.to_date:
            if self.from_date > self.to_date:
                raise ValueError("fromDate must not be after toDate")
            if monday_of(self.to_date) - monday_of(self.from_date) >= timedelta(weeks=MAX_WEEKS):
                raise ValueError(f"the range may span at most {MAX_WEEKS} weeks")
        return self


class _Week(Output):
    week: str = Field(description="ISO 8601 week, YYYY-Www")
    week_start: date = Field(description="Its Monday")
    week_end: date = Field(description="Its Sunday")


class SpecialistWeek(_Week):
    """What one specialist's cases did in one week (credited to the case's owner at the moment)."""

    user_id: int | None = Field(description="The specialist; null: cases nobody owned at the moment")
    display_name: str | None
    cases_closed: int = Field(description="Cases that left work (decided or closed) in the week")
    outcomes_won: int = Field(description="Payer decisions recorded in the week: won or partially won")
    outcomes_lost: int = Field(description="Payer decisions recorded in the week: lost")
    recovered_amount: Money = Field(description="What those decisions recovered")
    median_days_open: float | None = Field(description="Median days from opening to closing of the closed cases")


class WeekTotal(_Week):
    cases_closed: int
    outcomes_won: int
    outcomes_lost: int
    recovered_amount: Money
    median_days_open: float | None


class ThroughputOut(Output):
    time_zone: str = Field(description="The client's time zone the days and weeks are counted in")
    first_week: str
    last_week: str
    items: list[SpecialistWeek] = Field(description="Per week and specialist with anything done, oldest week first")
    weeks: list[WeekTotal] = Field(description="Every week of the range, the team's totals")


class OwnerBacklog(Output):
    user_id: int | None = Field(description="The specialist; null: unassigned")
    display_name: str | None
    open_cases: int = Field(description="Cases in work owned at the week's end (Sunday, end of day)")
    opened: int
    reopened: int
    closed: int
    moved_in: int = Field(description="Cases reassigned to this owner during the week")
    moved_out: int = Field(description="Cases reassigned away from this owner during the week")


class BacklogWeek(_Week):
    specialists: list[OwnerBacklog] = Field(description="Owners with open cases at the week's end or moves in it")
    unassigned: OwnerBacklog
    total: int = Field(description="Open cases at the week's end: the specialists' plus the unassigned")


class BacklogOut(Output):
    time_zone: str
    starting_total: int = Field(description="Open cases at the end of the day before the first week")
    weeks: list[BacklogWeek]
