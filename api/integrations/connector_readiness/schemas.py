"""Inputs and outputs of connectorReadiness.*."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.integrations.integration_control.schemas import CheckOut, Kind, RunState, State
from api.rpc.schema import DbId, Output, Schema


class ReadinessIn(Schema):
    id: DbId | None = Field(default=None, description="One integration; default every integration of the client")


class ReadinessItem(Output):
    integration_id: int
    key: str
    kind: Kind
    state: State
    ready: bool
    checks: list[CheckOut]
    last_run_state: RunState | None
    last_run_at: datetime | None
    last_success_at: datetime | None


class ReadinessOut(Output):
    ready: bool = Field(description="Every non-retired integration is ready (and there is one)")
    items: list[ReadinessItem]
