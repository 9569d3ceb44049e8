"""Inputs and outputs of operationalObservability.*."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from api.integrations.operations.schemas import PipelineRunOut
from api.rpc.schema import Output, PageInput


class PipelineRunsIn(PageInput):
    status: str | None = Field(default=None, pattern=r"^(queued|running|succeeded|failed)$")


class ObservedRun(PipelineRunOut):
    job_status: str | None = Field(description="queued | running | succeeded | failed | dead")
    job_attempts: int | None
    job_last_error: str | None
    wait_seconds: float | None = Field(description="From request to start")


class MartFreshness(Output):
    mart: str
    built_at: datetime
    age_seconds: float
    tenant_rows: int = Field(description="Rows of this client in the mart")


class FreshnessOut(Output):
    published: bool
    built_at: datetime | None
    age_seconds: float | None
    run_id: str | None
    stale: bool = Field(description="True when the snapshot is older than staleAfterSeconds (or missing)")
    stale_after_seconds: int
    marts: list[MartFreshness]


class QueueOut(Output):
    depth: int = Field(description="This organization's jobs due now and waiting")
    oldest_age_seconds: float | None = Field(description="Wait of this organization's oldest due job")
    running: int = Field(description="This organization's jobs running now")
    organization_jobs: dict[str, int] = Field(description="This organization's jobs by status")
    pipeline_runs_pending: int = Field(description="This client's pipeline runs queued or running")
