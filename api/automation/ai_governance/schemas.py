"""Inputs and outputs of aiGovernance.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field

from api.integrations.operational_control.scopes import AutomationTask
from api.rpc.schema import Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE


class ListIn(PageInput):
    enabled: bool | None = Field(default=None, description="Only enabled (true) or disabled (false) tasks")


class UpdateIn(Schema):
    task: AutomationTask
    enabled: bool
    reason: Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE]


class TaskEnablementOut(Output):
    task: str
    enabled: bool
    source: str = Field(description="default (never set: enabled) or set")
    reason: str | None
    updated_by_user_id: int | None
    updated_at: datetime | None
