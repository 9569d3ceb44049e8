"""Inputs and outputs of connectorProfiles.*."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from api.rpc.schema import Output, Schema


class ConnectorProfileOut(Output):
    name: str
    description: str
    entity: Literal["claim", "payment", "denial", "deposit"]
    column_map: dict[str, str]
    delimiter: str | None
    date_format: str | None
    money_format: str
    source: Literal["builtin", "client"]
    created_at: datetime | None = None


class ProvisionIn(Schema):
    profile: dict[str, Any] = Field(
        description="name, entity, column_map (source header -> canonical field), "
        "optional description, delimiter, date_format, money_format"
    )
