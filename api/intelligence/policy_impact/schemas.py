"""Inputs and outputs of policyImpact.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, Schema

State = Literal["open", "closed"]


class ItemRef(Schema):
    id: DbId


class ListItemsIn(PageInput):
    state: State | None = None
    created_from: date | None = Field(default=None, description="Created on or after this day (UTC)")
    created_to: date | None = Field(default=None, description="Created on or before this day (UTC)")


class ItemOut(Output):
    id: int
    label: str
    state: State
    created_at: datetime
