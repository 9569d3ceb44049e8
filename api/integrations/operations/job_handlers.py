"""The `pipeline.run` job: run the whole pipeline in the worker and record the outcome on the PipelineRun.

The pipeline rebuilds and publishes the marts of every tenant of the installation;
only the bookkeeping row belongs to the client that asked. Failure details kept
are step names and exception types, never messages (dbt or parser messages can
quote data).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from api.infra.db.base import utcnow
from api.infra.jobs.handlers import JobContext, register_abandoned, register_handler
from api.infra.jobs.queue import PermanentJobError
from api.integrations.operations.models import PipelineRun
from api.integrations.operations.service import JOB_KIND

log = logging.getLogger("api.integrations.operations")


def _get_run(db: Session, run_id: int) -> PipelineRun:
    run = db.get(PipelineRun, run_id)
    if run is None:
        raise PermanentJobError(f"pipeline run {run_id} no longer exists")
    return run


def _update(ctx: JobContext, run_id: int, **values: Any) -> None:
    with ctx.database.transaction() as db:
        run = _get_run(db, run_id)
        for key, value in values.items():
            setattr(run, key, value)


def _mark_running(ctx: JobContext, run_id: int, started: datetime) -> list[str] | None:
    """Record that the run started; returns the asset selection it asked for (None: everything)."""
    with ctx.database.transaction() as db:
        run = _get_run(db, run_id)
        run.status = "running"
        run.started_at = started
        return run.selection


# A step's event kind as a console line says it (the Dagster UI has the full event log).
_STEP_WORDS = {"STEP_START": "started", "STEP_SUCCESS": "done", "STEP_FAILURE": "FAILED", "STEP_SKIPPED": "skipped"}


def _progress(run_id: int) -> Callable[[str, str], None]:
    """One log line per step start and end (step names are asset and op names: no data in them)."""

    def on_event(step: str, kind: str) -> None:
        log.info("pipeline run %s: %s %s", run_id, step, _STEP_WORDS.get(kind, kind.lower()))

    return on_event


@register_handler(JOB_KIND)
def run_pipeline_job(ctx: JobContext) -> dict[str, Any]:
    """Materialise the pipeline for `payload.data_dir` against this database; returns the run summary ids."""
    from pipelines.runner import run_pipeline

    run_id = int(ctx.payload["pipeline_run_id"])
    data_dir = ctx.payload["data_dir"]
    started = utcnow()
    selection = _mark_running(ctx, run_id, started)
    try:
        # Persisted in DATA_DIR/dagster: analysts see API-triggered runs in the Dagster UI too.
        # With WAREHOUSE_URL the marts build on PostgreSQL and are exported to the DuckDB snapshot the API reads.
        summary = run_pipeline(
            data_dir,
            ctx.database.url,
            selection=selection or None,
            persist_runs=True,
            on_event=_progress(run_id),
            warehouse_url=ctx.settings.warehouse_url if ctx.settings is not None else None,
        )
    except Exception as exc:  # noqa: BLE001 - whatever failed is recorded on the run, then the job is dead
        finished = utcnow()
        _update(
            ctx,
            run_id,
            status="failed",
            finished_at=finished,
            seconds=(finished - started).total_seconds(),
            error=f"the pipeline could not run ({type(exc).__name__})",
        )
        log.error("pipeline run %s failed to start: %s", run_id, type(exc).__name__)
        raise PermanentJobError(f"pipeline run {run_id} raised {type(exc).__name__}") from None
    built_at = None
    if summary.published_snapshot:
        from pipelines.warehouse.snapshot import read_pointer

        built_at = read_pointer(data_dir).get("built_at")
    status = "succeeded" if summary.success else "failed"
    _update(
        ctx,
        run_id,
        status=status,
        finished_at=summary.finished_at,
        seconds=round(summary.seconds, 3),
        dagster_run_id=summary.run_id,
        snapshot_built_at=built_at,
        row_counts=dict(summary.row_counts),
        failed_steps=list(summary.failed_steps),
        error=None if summary.success else f"failed steps: {', '.join(summary.failed_steps)[:450]}",
    )
    log.info(
        "pipeline run %s %s in %.1f s: %d assets materialised, %d rows in the marts",
        run_id,
        status,
        summary.seconds,
        len(summary.row_counts),
        sum(rows for key, rows in summary.row_counts.items() if key.startswith("marts/")),
    )
    return {"pipeline_run_id": run_id, "status": status, "dagster_run_id": summary.run_id}


@register_abandoned(JOB_KIND)
def pipeline_job_abandoned(ctx: JobContext) -> None:
    """The worker running this pipeline run was lost on its last attempt: the run is failed, saying so,
    rather than left `running` with nobody building it."""
    run_id = int(ctx.payload["pipeline_run_id"])
    with ctx.database.transaction() as db:
        run = db.get(PipelineRun, run_id)
        if run is None or run.status in ("succeeded", "failed"):
            return
        run.status = "failed"
        run.finished_at = utcnow()
        run.error = "the worker running it was lost (killed or out of memory) on its last attempt; request it again"
    log.error("pipeline run %s abandoned: its worker was lost on the last attempt", run_id)
