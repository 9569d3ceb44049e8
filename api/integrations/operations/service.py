"""Pipeline run requests: record them and hand them to the durable job queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import NotFound
from api.infra.db.lookup import where_given
from api.infra.jobs.queue import enqueue
from api.integrations.operations.models import PipelineRun

JOB_KIND = "pipeline.run"


def request_run(
    db: Session, *, user_id: int, organization_id: int, data_dir: Path, selection: list[str] | None
) -> tuple[PipelineRun, bool]:
    """A queued PipelineRun and its job; an earlier still-queued request of this client with the
    same selection is reused (the pipeline rebuilds every tenant anyway). Returns (run, reused)."""
    pending = db.scalar(select(PipelineRun).where(PipelineRun.status == "queued").order_by(PipelineRun.id.desc()))
    if pending is not None and pending.selection == selection:
        return pending, True
    run = PipelineRun(status="queued", requested_by=user_id, selection=selection)
    db.add(run)
    db.flush()
    job = enqueue(
        db,
        JOB_KIND,
        {"pipeline_run_id": run.id, "data_dir": str(data_dir)},
        organization_id=organization_id,
        # A pipeline failure never retries (the handler records it and raises PermanentJobError); the second
        # attempt is for a worker lost mid-run (killed, out of memory), whose job the next worker gives back:
        # the run is built anew (a build of its own, an atomic publish), so the request is not lost.
        max_attempts=2,
    )
    run.job_id = job.id
    db.flush()
    return run, False


def list_statement(status: str | None) -> Select[Any]:
    """Pipeline runs by status (when given); unordered, for paging."""
    return where_given(select(PipelineRun), (PipelineRun.status, status))


def get_run(db: Session, run_id: int) -> PipelineRun:
    """A run of this client, or NOT_FOUND."""
    run = db.scalar(select(PipelineRun).where(PipelineRun.id == run_id))
    if run is None:
        raise NotFound(f"Pipeline run {run_id} was not found in this client")
    return run
