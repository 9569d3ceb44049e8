"""Inputs and outputs of comms.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Channel = Literal["letter", "fax", "portal"]
Status = Literal["queued", "sent", "delivered", "failed"]


class SendIn(Schema):
    case_id: DbId
    channel: Channel
    recipient: Annotated[str, Field(min_length=1, max_length=500), MULTI_LINE] = Field(
        description="letter: the payer's postal address (two lines or more); fax: the number; portal: the portal id"
    )
    subject: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    body: Annotated[str, Field(min_length=1, max_length=100_000), MULTI_LINE] = Field(
        description="The content (may hold PHI: returned to members, never logged; the audit gets its digest)"
    )
    transport: Literal["sandbox", "live"] = Field(
        default="sandbox", description="Only the sandbox is configured; 'live' is PRECONDITION_FAILED until one is"
    )


class StatusStepOut(Output):
    status: str
    at: datetime
    detail: str


class MessageSummaryOut(Output):
    id: int
    case_id: int
    channel: str
    transport: str
    recipient: str
    subject: str
    content_digest: str = Field(description="SHA-256 (hex) of the rendered content")
    content_bytes: int
    status: str
    transport_reference: str | None
    failure_reason: str | None
    sent_by_user_id: int
    created_at: datetime
    sent_at: datetime | None
    delivered_at: datetime | None
    failed_at: datetime | None


class MessageOut(MessageSummaryOut):
    body: str
    status_history: list[StatusStepOut]
    transport_request: dict[str, Any] = Field(
        description="What the transport was given (digest and size, not the body)"
    )
    transport_response: dict[str, Any]


class MessageRef(Schema):
    id: DbId


class ListMessagesIn(PageInput):
    case_id: DbId | None = None
    channel: Channel | None = None
    status: Status | None = None
