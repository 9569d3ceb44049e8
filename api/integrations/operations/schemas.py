"""Inputs and outputs of operations.*."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import Field, field_validator

from api.rpc.schema import Output, PageInput, Schema


class RunPipelineIn(Schema):
    selection: list[str] | None = Field(
        default=None,
        max_length=50,
        description="Asset keys ('marts/fct_kpis_monthly') or groups ('raw'); default: the whole pipeline",
    )

    @field_validator("selection")
    @classmethod
    def _keys(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        for item in value:
            if not re.fullmatch(r"[a-z0-9_]+(/[a-z0-9_]+)*", item):
                raise ValueError(
                    "each selection item is an asset key like 'marts/fct_kpis_monthly' or a group like 'raw'"
                )
        return value


class PipelineRunOut(Output):
    id: int
    status: str
    requested_by: int
    job_id: int | None
    selection: list[str] | None
    dagster_run_id: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    seconds: float | None
    snapshot_built_at: str | None
    row_counts: dict[str, Any] | None
    failed_steps: list[str] | None
    error: str | None


class RunPipelineOut(PipelineRunOut):
    already_queued: bool = Field(default=False, description="True when an earlier queued request is reused")


class RunRef(Schema):
    run_id: int = Field(ge=1)


class ListRunsIn(PageInput):
    status: str | None = Field(default=None, pattern=r"^(queued|running|succeeded|failed)$")
