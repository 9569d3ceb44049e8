"""Inputs and outputs of notifications.*."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, Page, PageInput, Schema

Kind = Literal["deadline_approaching", "decision_arrived", "assigned", "mention", "escalated", "message_status"]


class ListNotificationsIn(PageInput):
    unread: bool | None = Field(default=None, description="true: only unread; false: only read; omitted: all")
    kind: Kind | None = None


class NotificationOut(Output):
    id: int
    kind: str
    case_id: int | None
    title: str
    read_at: datetime | None
    created_at: datetime


class NotificationPage(Page[NotificationOut]):
    unread_count: int = Field(description="The caller's unread notifications in this client (all kinds)")


class MarkReadIn(Schema):
    ids: list[DbId] = Field(min_length=1, max_length=500, description="The caller's own notification ids")


class MarkReadOut(Output):
    items: list[NotificationOut]
    unread_count: int


class SubscribeIn(Schema):
    kind: Kind
    enabled: bool
    channel: Literal["in_app"] = "in_app"


class SubscriptionOut(Output):
    id: int
    kind: str
    channel: str
    enabled: bool
    updated_at: datetime | None
