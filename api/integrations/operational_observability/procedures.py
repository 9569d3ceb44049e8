"""operationalObservability.*: pipeline runs with their job state, freshness of the published marts,
the depth of the durable job queue, and where the denial cases disagree with the marts' money."""

from __future__ import annotations

from sqlalchemy import func, select

from api.core.errors import PreconditionFailed
from api.infra.jobs.models import Job
from api.infra.jobs.queue import queue_stats
from api.infra.marts.serving import open_marts, snapshot_of
from api.integrations.operational_observability import queries
from api.integrations.operational_observability.schemas import (
    CaseLedgerDifferencesIn,
    CaseLedgerDifferencesOut,
    FreshnessOut,
    ObservedRun,
    PipelineRunsIn,
    QuarantineOut,
    QuarantinesOut,
    QueueOut,
)
from api.integrations.operations import service as operations
from api.integrations.operations.models import PipelineRun
from api.integrations.operations.schemas import PipelineRunOut
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("operationalObservability")

STALE_AFTER_SECONDS = 24 * 3600


@router.query("pipelineRuns")
def pipeline_runs(ctx: Context, input: PipelineRunsIn) -> Page[ObservedRun]:
    """Pipeline runs of this client, newest first, with the state of their queue job (attempts, last
    error type) and how long each waited before starting; paginated."""
    stmt = operations.list_statement(input.status or None)  # an empty status filters nothing
    page = paginate(ctx.db, stmt, PipelineRun.id, input, lambda r: r)
    job_ids = [r.job_id for r in page.items if r.job_id is not None]
    jobs = {j.id: j for j in ctx.db.scalars(select(Job).where(Job.id.in_(job_ids)))} if job_ids else {}
    items = [_observed(run, jobs.get(run.job_id)) for run in page.items]
    return Page[ObservedRun](items=items, next_cursor=page.next_cursor)


def _observed(run: PipelineRun, job: Job | None) -> ObservedRun:
    wait = (run.started_at - run.created_at).total_seconds() if run.started_at else None
    return ObservedRun.model_validate(
        {
            **PipelineRunOut.model_validate(run).model_dump(),
            "job_status": job.status if job else None,
            "job_attempts": job.attempts if job else None,
            "job_last_error": job.last_error if job else None,
            "wait_seconds": wait,
        }
    )


@router.query("freshness")
def freshness(ctx: Context) -> FreshnessOut:
    """When the published snapshot was built, its age, and per mart the rows this client has in it.
    Without a snapshot yet the answer says published=false (and stale) instead of failing."""
    reader = ctx.services.marts
    try:
        if reader is None:
            raise PreconditionFailed("no reader")
        with reader.scoped(ctx.org_id, ctx.client_id) as m:
            snap = snapshot_of(m)
            marts = queries.mart_freshness(m, snap)
    except PreconditionFailed:
        return FreshnessOut(
            published=False,
            built_at=None,
            age_seconds=None,
            run_id=None,
            stale=True,
            stale_after_seconds=STALE_AFTER_SECONDS,
            marts=[],
        )
    return FreshnessOut(
        published=True,
        built_at=snap.built_at,
        age_seconds=snap.age_seconds,
        run_id=snap.run_id,
        stale=snap.age_seconds > STALE_AFTER_SECONDS,
        stale_after_seconds=STALE_AFTER_SECONDS,
        marts=marts,
    )


@router.query("quarantines")
def quarantines(ctx: Context) -> QuarantinesOut:
    """Why this client's new data is held back from the published marts: each failing mart contract (the
    dbt test, model, column, this client's failing rows, when it was found) and the age of the rows the
    client is served instead. Other clients' snapshots publish regardless. Empty when nothing is held back."""
    with open_marts(ctx) as m:
        snap = snapshot_of(m)
        items = [QuarantineOut.model_validate(q) for q in m.snapshot.quarantines_of(ctx.org_id, ctx.client_id)]
    return QuarantinesOut(
        snapshot=snap,
        quarantined=bool(items),
        data_built_at=snap.data_built_at,
        data_age_seconds=snap.data_age_seconds,
        items=items,
    )


@router.query("queue")
def queue(ctx: Context) -> QueueOut:
    """This organization's part of the durable job queue: due jobs waiting, the oldest wait, running jobs,
    its jobs by status (for organization-wide members: jobs belong to the organization, not to one of its
    clients), and this client's pending pipeline runs. Other organizations' work is not shown."""
    stats = queue_stats(ctx.db, organization_id=ctx.org_id)
    by_status: dict[str, int] = {}
    if ctx.tenant.organization_wide:
        by_status = dict(
            ctx.db.execute(
                select(Job.status, func.count()).where(Job.organization_id == ctx.org_id).group_by(Job.status)
            ).all()
        )
    pending = ctx.db.scalar(
        select(func.count()).select_from(PipelineRun).where(PipelineRun.status.in_(("queued", "running")))
    )
    return QueueOut(
        depth=stats.depth,
        oldest_age_seconds=stats.oldest_age_seconds,
        running=stats.running,
        organization_jobs={k: int(v) for k, v in by_status.items()},
        pipeline_runs_pending=int(pending or 0),
    )


@router.query("caseLedgerDifferences")
def case_ledger_differences(ctx: Context, input: CaseLedgerDifferencesIn) -> CaseLedgerDifferencesOut:
    """Where this client's denial cases disagree with the money of the published marts, claim by claim and
    payer by payer (the guard checked after every build): a case missing for an initial denial, a
    remittance case without a denial, an amount at stake or a recovery that differs, with the two figures
    and the case id; filtered by kind, paginated. Empty when the work agrees with the money."""
    with open_marts(ctx, queries.DIFFERENCES_MART) as m:
        total, items, cursor = queries.case_ledger_differences(m, input)
        snap = snapshot_of(m)
    return CaseLedgerDifferencesOut(snapshot=snap, differences=total, items=items, next_cursor=cursor)
