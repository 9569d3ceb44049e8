"""Inputs and outputs of deadlineRisk.*."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema


class AtRiskIn(PageInput):
    as_of: Day | None = Field(default=None, description="Judge the time left at this date (default: today, UTC)")
    owner_user_id: DbId | None = None
    payer: str | None = Field(default=None, min_length=1, max_length=200, description="Payer name or payer id")
    include_no_deadline: bool = Field(default=False, description="Also list working cases without a deadline (last)")


class AtRiskItem(Output):
    case_id: int
    state: str
    payer: str
    payer_class: str | None
    owner_user_id: int | None
    due_on: date | None = Field(description="The case's earliest appeal deadline not met (open or missed)")
    business_days_left: int | None = Field(description="Business days in (asOf, dueOn]; negative when overdue")
    work_days_needed: int = Field(description="Business days of work the case's state still needs")
    slack: int | None = Field(description="businessDaysLeft - workDaysNeeded; ranked ascending")
    band: str = Field(description="missed | critical (slack < 0) | high (<= 2) | medium (<= 10) | low | no_deadline")


class AtRiskOut(Page[AtRiskItem]):
    as_of: date


class SummaryIn(Schema):
    as_of: Day | None = Field(default=None, description="Default: today, UTC")
    owner_user_id: DbId | None = None
    payer: str | None = Field(default=None, min_length=1, max_length=200)


class HorizonCounts(Output):
    overdue: int
    within_7_days: int
    within_30_days: int
    later: int
    no_deadline: int


class BandCounts(Output):
    missed: int
    critical: int
    high: int
    medium: int
    low: int
    no_deadline: int


class SummaryOut(Output):
    as_of: date
    working_cases: int
    by_horizon: HorizonCounts
    by_band: BandCounts
