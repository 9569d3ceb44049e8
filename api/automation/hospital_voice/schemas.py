"""Inputs and outputs of hospitalVoice.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from api.rpc.schema import Output, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Goal = Literal["claim_status", "appeal_status", "reopening_request"]
Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
HhMm = Annotated[str, Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="HH:MM, 24-hour, local time")]


class WindowIn(Schema):
    day: Day
    start: HhMm
    end: HhMm


class HoursIn(Schema):
    timezone: Annotated[str, Field(min_length=1, max_length=64), SINGLE_LINE] = Field(
        description="IANA time zone, e.g. America/Chicago"
    )
    windows: list[WindowIn] = Field(max_length=21, description="Weekly calling windows (no overlap on a day)")


Script = Annotated[str, Field(min_length=1, max_length=2000), MULTI_LINE]


class UpdateSettingsIn(Schema):
    """Only the fields given change; the others keep their value (or default)."""

    caller_name: Annotated[str, Field(min_length=1, max_length=100), SINGLE_LINE] | None = None
    callback_number: Annotated[str, Field(min_length=10, max_length=20), SINGLE_LINE] | None = Field(
        default=None, description="10-digit North American number"
    )
    npi: Annotated[str, Field(min_length=10, max_length=10), SINGLE_LINE] | None = Field(
        default=None, description="The billing provider's NPI (10 digits, check digit per the NPI standard)"
    )
    tin: Annotated[str, Field(min_length=9, max_length=10), SINGLE_LINE] | None = Field(
        default=None, description="The billing provider's tax id (9 digits, 12-3456789 accepted)"
    )
    hours: HoursIn | None = None
    scripts: dict[Goal, Script] | None = Field(
        default=None,
        description="Script template per goal (${caller_name}, ${claim_number}, ${date_of_service}, ...); "
        "goals not given keep theirs",
    )


class WindowOut(Output):
    day: str
    start: str
    end: str


class HoursOut(Output):
    timezone: str
    windows: list[WindowOut]


class SettingsOut(Output):
    caller_name: str
    callback_number: str | None
    npi: str | None
    tin: str | None
    hours: HoursOut
    scripts: dict[str, str] = Field(description="The template used per goal (the default where none was set)")
    custom_scripts: list[str] = Field(description="Goals whose script was set by the client")
    is_default: bool = Field(description="True until someone saves settings for this client")
    updated_by_user_id: int | None
    updated_at: datetime | None
