"""Inputs and outputs of activationGovernance.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from api.rpc.schema import Output, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Gate = Literal[
    "data_validated", "payer_rules_reviewed", "users_trained", "integrations_tested", "pipeline_dry_run_clean"
]


class RecordGateIn(Schema):
    gate: Gate
    passed: bool
    evidence: Annotated[str, Field(min_length=3, max_length=4000), MULTI_LINE] = Field(
        description="What shows the gate passed (or why it did not)"
    )
    reference: Annotated[str, Field(min_length=1, max_length=500), SINGLE_LINE] | None = Field(
        default=None, description="Where the evidence is (a document id, a ticket, a run id)"
    )


class GateOut(Output):
    gate: Gate
    description: str
    state: Literal["passed", "failed", "not_recorded"]
    passed: bool
    evidence: str | None
    reference: str | None
    recorded_by_user_id: int | None
    recorded_at: datetime | None
    recordings: int = Field(description="How many times the gate was recorded (the latest wins)")


class ChecklistOut(Output):
    client_id: int
    gates: list[GateOut]


class RecordedGateOut(Output):
    id: int
    gate: Gate
    passed: bool
    evidence: str
    reference: str | None
    recorded_by_user_id: int
    created_at: datetime


class StatusOut(Output):
    client_id: int
    ready: bool = Field(description="True when every gate's latest recording passed: automation may be switched on")
    passed: int
    total: int
    blockers: list[Gate] = Field(description="Gates not passed yet, in checklist order")
