"""Inputs and outputs of interventionExecution.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, Schema
from api.rpc.text import MULTI_LINE

State = Literal["planned", "active", "completed", "abandoned"]


class InterventionRef(Schema):
    id: DbId


class RecordResultIn(Schema):
    id: DbId
    outcome: Literal["completed", "abandoned"] = Field(
        description="completed (from active) or abandoned (from planned or active)"
    )
    note: Annotated[str, Field(min_length=1, max_length=2000), MULTI_LINE]


class ExecutionOut(Output):
    id: int
    name: str
    state: State
    start_date: date
    started_at: datetime | None
    finished_at: datetime | None
    outcome: str | None
    result_note: str | None


class LatestEvidenceOut(Output):
    """The latest evidence record (evidence.getById for all of it)."""

    id: int
    computed_at: datetime
    treated_before_trials: int
    treated_after_trials: int
    did_estimate: float | None
    did_ci_low: float | None
    did_ci_high: float | None
    did_n_total: int | None
    significant: bool
    enough_trials: bool
    statement: str


class StatusOut(ExecutionOut):
    pattern_key: str
    action_key: str
    evidence_count: int
    latest_evidence: LatestEvidenceOut | None
