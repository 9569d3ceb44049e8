"""Inputs and outputs of interventions.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from api.infra.marts.inputs import PayerKey
from api.rpc.schema import ActionKey, Day, DbId, Output, PageInput, PatternKey, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

State = Literal["planned", "active", "completed", "abandoned"]
Category = Annotated[
    str, Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_]+$", description="Denial category, e.g. eligibility")
]
Carc = Annotated[
    str,
    Field(min_length=1, max_length=5, pattern=r"^[A-Za-z0-9]{1,5}$", description="CARC code, e.g. 27 (X12 CARC list)"),
]
Dimension = Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]


class ScopeIn(Schema):
    """The cell the intervention acts on; a dimension left out means every value of it."""

    payer_key: PayerKey | None = None
    category: Category
    carc: Carc | None = None
    service_line: Dimension | None = None
    facility: Dimension | None = None


class CreateIn(Schema):
    name: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    pattern_key: PatternKey
    action_key: ActionKey
    scope: ScopeIn
    start_date: Day = Field(description="From this day the effect is measured (its month counts as 'after')")
    description: Annotated[str, Field(max_length=2000), MULTI_LINE] | None = None


class InterventionRef(Schema):
    id: DbId


class ListIn(PageInput):
    state: State | None = None
    pattern_key: PatternKey | None = None
    action_key: ActionKey | None = None


class ScopeOut(Output):
    payer_key: str | None
    category: str
    carc: str | None
    service_line: str | None
    facility: str | None


class InterventionOut(Output):
    id: int
    name: str
    pattern_key: str
    action_key: str
    scope: ScopeOut
    start_date: date
    description: str | None
    state: State
    created_by: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    outcome: str | None
    result_note: str | None
