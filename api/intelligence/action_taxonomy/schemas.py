"""Inputs and outputs of actionTaxonomy.*."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, PlainSerializer

from api.intelligence.action_taxonomy.catalogue import Category
from api.rpc.schema import ActionKey, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

Kind = Literal["appeal", "corrected_claim", "rebill_other_payer", "payer_call", "patient_billing", "write_off"]
Hours = Annotated[
    Decimal,
    Field(gt=0, le=200, max_digits=6, decimal_places=2, description='Hours of work, e.g. "1.5"'),
    PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json"),
]


class ListActionsIn(PageInput):
    kind: Kind | None = None
    category: Category | None = Field(default=None, description="Only actions that apply to this denial category")
    include_inactive: bool = False


class ActionOut(Output):
    key: str
    label: str
    kind: str
    effort_hours: Hours
    effort_rationale: str | None = Field(description="Why a built-in has its effort (ASSUMPTION: not measured)")
    applies_to: list[str]
    active: bool
    built_in: bool


class ActionsOut(Output):
    items: list[ActionOut]
    next_cursor: str | None = None


class UpsertActionIn(Schema):
    key: ActionKey
    label: Annotated[str, SINGLE_LINE] = Field(min_length=1, max_length=120)
    kind: Kind
    effort_hours: Hours
    applies_to: list[Category] = Field(min_length=1, max_length=16)
    active: bool = True


class UpsertActionOut(Output):
    action: ActionOut
    created: bool
