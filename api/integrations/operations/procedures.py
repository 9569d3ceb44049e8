"""operations.*: trigger a pipeline run (durable job) and follow the runs this client requested."""

from __future__ import annotations

from api.integrations.operations import service
from api.integrations.operations.models import PipelineRun
from api.integrations.operations.schemas import ListRunsIn, PipelineRunOut, RunPipelineIn, RunPipelineOut, RunRef
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("operations")


@router.mutation("runPipeline", permission="analyze")
def run_pipeline(ctx: Context, input: RunPipelineIn) -> RunPipelineOut:
    """Queue a rebuild of the marts (job kind "pipeline.run"). The pipeline rebuilds every tenant's
    marts and publishes a new snapshot; follow the run with operations.getRun. A request while an
    earlier one of this client is still queued returns that one (alreadyQueued)."""
    run, reused = service.request_run(
        ctx.db,
        user_id=ctx.user_id,
        organization_id=ctx.org_id,
        data_dir=ctx.services.settings.resolved_data_dir,
        selection=input.selection,
    )
    if not reused:
        ctx.note("pipeline_run", run.id, after={"job_id": run.job_id, "selection": input.selection})
    else:
        ctx.note("pipeline_run", run.id, after={"reused": True})
    return RunPipelineOut.model_validate({**PipelineRunOut.model_validate(run).model_dump(), "already_queued": reused})


@router.query("getRun")
def get_run(ctx: Context, input: RunRef) -> PipelineRunOut:
    """One pipeline run of this client: status, timings, rows per asset, failed steps."""
    return PipelineRunOut.model_validate(service.get_run(ctx.db, input.run_id))


@router.query("listRuns")
def list_runs(ctx: Context, input: ListRunsIn) -> Page[PipelineRunOut]:
    """Pipeline runs this client requested, newest first, optionally by status; paginated."""
    stmt = service.list_statement(input.status)
    return paginate(ctx.db, stmt, PipelineRun.id, input, PipelineRunOut.model_validate)
