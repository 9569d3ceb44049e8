"""Inputs and outputs of payerKnowledge.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from api.rpc.schema import Day, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

FactKind = Literal["appeal_address", "portal", "phone", "fax", "filing_limit", "medical_policy", "other"]
PayerKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=80,
        description="The payer id as claims and remittances name it (835 N1*PR N104 / REF*2U)",
    ),
    SINGLE_LINE,
]
Label = Annotated[
    str,
    Field(max_length=80, description='Which one of the kind, e.g. "provider services" (empty: the kind\'s one fact)'),
    SINGLE_LINE,
]


class GetIn(Schema):
    payer_key: PayerKey
    as_of: Day | None = Field(default=None, description="Default: today in the client's time zone")
    history: bool = Field(default=False, description="Also every version, newest start first (at most 500)")


class FactOut(Output):
    id: int
    payer_key: str
    payer_name: str | None
    kind: str
    label: str
    value: str
    source: str = Field(description="Where the fact comes from: a URL or a document citation")
    effective_from: date
    effective_to: date | None = Field(description="The last day it is in force; null: until a newer version")
    recorded_by: int | None
    created_at: datetime


class GetOut(Output):
    payer_key: str
    payer_name: str | None = Field(description="The latest name recorded with the payer's facts")
    as_of: date
    facts: list[FactOut] = Field(description="The facts in force on asOf, by kind and label")
    history: list[FactOut] = Field(description="Every version when asked (history: true), else empty")
    history_truncated: bool


class UpsertFactIn(Schema):
    payer_key: PayerKey
    payer_name: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE] | None = None
    kind: FactKind
    label: Label = ""
    value: Annotated[str, Field(min_length=1, max_length=2000), MULTI_LINE] = Field(
        description="The fact itself (an address may span lines; a portal is its https address)"
    )
    source: Annotated[str, Field(min_length=1, max_length=500), SINGLE_LINE] = Field(
        description="A URL or a document citation (provider manual section, letter of a date)"
    )
    effective_from: Day
    effective_to: Day | None = Field(default=None, description="Null: in force until a newer version")


class UpsertFactOut(Output):
    fact: FactOut
    created: bool = Field(description="False: the very same version was recorded already (nothing changed)")
    closed: list[FactOut] = Field(description="The earlier version this one closed (kept, never deleted)")


class SearchIn(PageInput):
    text: Annotated[str, Field(min_length=1, max_length=100), SINGLE_LINE] = Field(
        description="Found in the payer key, payer name, kind or value (case-insensitive; % and _ are literal)"
    )
    kind: FactKind | None = None
    as_of: Day | None = Field(default=None, description="Facts in force on this day (default today)")
    history: bool = Field(default=False, description="Every version instead of those in force on asOf")
