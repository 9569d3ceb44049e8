"""Inputs and outputs of deadlines.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema

DeadlineKind = Literal["appeal", "timely_filing"]
Level = Field(min_length=1, max_length=40, pattern=r"^[a-z_]+$", description="e.g. redetermination, timely_filing")


class CaseRef(Schema):
    case_id: DbId
    as_of: Day | None = Field(
        default=None, description="Judge open/missed at this date (default: today in the client's time zone)"
    )


class DeadlineOut(Output):
    id: int
    case_id: int
    level: str
    kind: str = Field(description="appeal | timely_filing")
    due_on: date = Field(description="The date that counts: the override if any, else the computed date")
    computed_due_on: date
    basis: str = Field(description="What basisDate is, e.g. receipt_of_initial_determination, date_of_service")
    basis_date: date
    limit_days: int
    business_days: bool
    rule_reference: str
    is_default_rule: bool = Field(description="The limit is a default the payer's contract or state may change")
    payer_type: str | None = Field(
        description="Whose limit it is: medicare, medicare_advantage, medicaid, tricare, commercial, erisa"
    )
    assumed: bool = Field(description="The payer class is unknown: the shortest common window was assumed")
    rule_source: str | None = Field(
        description="Where the limit comes from: its citation, the client's rule's source, or the hospital's export"
    )
    status: str = Field(description="open | met | missed (at asOf)")
    days_left: int = Field(description="Calendar days from asOf to dueOn (negative: overdue)")
    overridden_due_on: date | None
    override_reason: str | None
    overridden_by: int | None
    overridden_at: datetime | None


class ForCaseOut(Output):
    case_id: int
    state: str
    payer_class: str | None
    appeal_due_on: date | None = Field(
        description="The case's next deadline not met (open or missed): its earliest appeal deadline; a soft "
        "denial's corrected-claim timely filing"
    )
    assumed: bool = Field(description="Some deadline of the case assumes a payer class (the payer is unknown)")
    as_of: date
    items: list[DeadlineOut]


class UpcomingIn(PageInput):
    within_days: int = Field(default=30, ge=0, le=3650, description="Deadlines due on or before asOf + withinDays")
    as_of: Day | None = Field(default=None, description="Default: today in the client's time zone")
    include_overdue: bool = Field(default=False, description="Also list open deadlines already past")
    owner_user_id: DbId | None = None
    payer: str | None = Field(default=None, min_length=1, max_length=200, description="Payer name or payer id")
    kind: DeadlineKind | None = None


class UpcomingItem(DeadlineOut):
    case_state: str
    owner_user_id: int | None
    payer: str
    payer_class: str | None


class UpcomingOut(Page[UpcomingItem]):
    as_of: date


class OverrideIn(Schema):
    case_id: DbId
    level: str = Level
    due_on: Day = Field(description="The new deadline; never before today")
    reason: str = Field(min_length=1, max_length=1000, description="Why (contract clause, extension granted)")
