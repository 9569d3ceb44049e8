"""Inputs and outputs of appealAssembly.*. Money is a Decimal with two places in, an exact decimal string out."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from api.infra.marts.serving import Money
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Level = Literal["first_level", "second_level"]
State = Literal[
    "assembled", "submitted", "acknowledged", "info_requested", "info_supplied", "decided", "withdrawn", "superseded"
]
EventKind = Literal["submitted", "acknowledged", "info_requested", "info_supplied", "decided", "withdrawn"]
Decision = Literal["won", "partially_won", "lost"]
Amount = Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)]

MAX_DOCUMENTS = 100


class CreatePacketIn(Schema):
    case_id: DbId
    level: Level | None = Field(
        default=None,
        description="first_level (redetermination) or second_level (reconsideration); default: second_level when "
        "a packet of the case was decided already, else first_level",
    )
    letter_text: Annotated[str, Field(min_length=1, max_length=50_000), MULTI_LINE] | None = Field(
        default=None,
        description="The letter as the specialist wrote it, instead of the one generated from the template "
        "(claim facts only: no patient names)",
    )
    letter_draft_id: DbId | None = Field(
        default=None,
        description="An appeal_letter draft of the case (drafts.*) whose current version is the letter; "
        "editing the draft later changes the packet's content hash, which voids an approval of it",
    )
    document_ids: list[DbId] | None = Field(
        default=None,
        max_length=MAX_DOCUMENTS,
        description="The evidence documents of the case to enclose, in this order; default: every active document "
        "of the case in attach order",
    )

    @model_validator(mode="after")
    def _one_letter(self) -> CreatePacketIn:
        if self.letter_text is not None and self.letter_draft_id is not None:
            raise ValueError("give letterText or letterDraftId, not both")
        return self

    @field_validator("document_ids")
    @classmethod
    def _distinct(cls, value: list[int] | None) -> list[int] | None:
        if value is not None and len(set(value)) != len(value):
            raise ValueError("must not name a document twice")
        return value


class PacketRef(Schema):
    id: DbId


class ListPacketsIn(PageInput):
    case_id: DbId | None = None
    state: State | None = None


class PacketEventIn(Schema):
    packet_id: DbId
    kind: EventKind = Field(
        description="submitted (only through approvedActions.executeSandbox), acknowledged, info_requested, "
        "info_supplied, decided (with decision and amountRecovered), withdrawn"
    )
    occurred_on: date | None = Field(
        default=None, description="When the payer did it (a decision: its date, not in the future); default today"
    )
    note: Annotated[str, Field(min_length=1, max_length=2000), MULTI_LINE] | None = Field(
        default=None, description="What the payer asked for or said (returned to members, never logged or audited)"
    )
    decision: Decision | None = Field(default=None, description="decided only: the payer's decision")
    amount_recovered: Amount | None = Field(
        default=None, description="decided only: the money the decision recovers (0 for lost)"
    )
    payer_reference: Annotated[str, Field(min_length=1, max_length=80), SINGLE_LINE] | None = Field(
        default=None, description="decided only: the payer's reference for the decision"
    )


class CoverFormOut(Output):
    form_id: str
    title: str
    fields: list[tuple[str, str]] = Field(description="(label, value); an empty value is completed by hand")


class PacketItemOut(Output):
    position: int
    document_id: int
    title: str
    doc_type: str
    media_type: str
    sha256: str
    size_bytes: int
    page_count: int | None


class PacketEventOut(Output):
    id: int
    kind: str
    from_state: str | None
    to_state: str
    occurred_on: date | None
    actor_user_id: int | None
    note: str | None
    details: dict[str, Any]
    created_at: datetime


class PacketSummaryOut(Output):
    id: int
    case_id: int
    level: str
    state: str
    state_changed_at: datetime
    template_key: str
    template_version: str
    letter_source: str = Field(
        description="template (generated), custom (given at create) or draft (an appeal_letter draft's version)"
    )
    letter_draft_id: int | None = Field(description="The draft the letter came from (letter_source draft)")
    letter_draft_version: int | None = Field(description="The draft version enclosed")
    cover_form_id: str | None
    content_hash: str = Field(
        description="SHA-256 over the letter, its template version and the evidence bytes in order"
    )
    evidence_count: int
    created_by_user_id: int
    created_at: datetime
    submitted_via_action_id: int | None
    tracking_number: str | None
    submitted_at: datetime | None
    decision: str | None
    outcome_id: int | None
    decided_at: datetime | None


class PacketOut(PacketSummaryOut):
    letter_text: str
    cover_facts: list[tuple[str, str]]
    cover_form: CoverFormOut | None
    items: list[PacketItemOut]
    events: list[PacketEventOut]


class PacketEventResultOut(PacketOut):
    case_state: str = Field(description="The case's state after the event")
    case_recovered_amount: Money = Field(description="The case's recovered amount after the event")


class RenderedPacketOut(Output):
    packet_id: int
    file_name: str
    media_type: str
    content_base64: str = Field(description="The PDF's bytes, base64-encoded")
    byte_count: int
    sha256: str = Field(description="SHA-256 (hex) of the PDF bytes (the same packet renders the same bytes)")
    page_count: int
    content_hash: str = Field(description="The packet's content hash, as printed on the cover")
