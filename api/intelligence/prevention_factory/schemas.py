"""Inputs and outputs of preventionFactory.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, PatternKey, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

State = Literal["open", "in_progress", "done", "cancelled"]
Note = Annotated[str, Field(min_length=1, max_length=1000), MULTI_LINE]


class CreateIn(Schema):
    pattern_key: PatternKey
    title: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    description: Annotated[str, Field(max_length=10_000), MULTI_LINE] | None = None
    owner_user_id: DbId = Field(description="A member reaching this client who may write")
    due_date: date | None = None


class ListIn(PageInput):
    state: State | None = None
    pattern_key: PatternKey | None = None
    owner_user_id: DbId | None = None


class TransitionIn(Schema):
    id: DbId
    to: State
    note: Note | None = None


class WorkItemOut(Output):
    id: int
    pattern_key: str
    confirmed_pattern_id: int
    title: str
    description: str | None
    owner_user_id: int
    due_date: date | None
    state: State
    created_by: int
    created_at: datetime
    updated_at: datetime
