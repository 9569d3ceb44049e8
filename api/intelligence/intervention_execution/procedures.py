"""interventionExecution.*: running an intervention and measuring it."""

from __future__ import annotations

from api.intelligence.intervention_execution import service
from api.intelligence.intervention_execution.schemas import ExecutionOut, InterventionRef, RecordResultIn, StatusOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("interventionExecution")


@router.mutation("start")
def start(ctx: Context, input: InterventionRef) -> ExecutionOut:
    """Start a planned intervention (planned -> active, sets startedAt); any other state is
    PRECONDITION_FAILED. Its startDate stays the cut-over its evidence is measured from."""
    row = service.start(ctx.db, input.id)
    ctx.note("intervention", row.id, after={"state": row.state})
    return ExecutionOut.model_validate(row)


@router.mutation("recordResult")
def record_result(ctx: Context, input: RecordResultIn) -> ExecutionOut:
    """Record how an intervention ended with a note: "completed" (active -> completed) or "abandoned"
    (planned or active -> abandoned); any other move is PRECONDITION_FAILED."""
    row = service.record_result(ctx.db, input.id, outcome=input.outcome, note=input.note)
    ctx.note("intervention", row.id, after={"state": row.state})
    return ExecutionOut.model_validate(row)


@router.query("status")
def status(ctx: Context, input: InterventionRef) -> StatusOut:
    """An intervention's state and dates, how many evidence records it has and the latest one's
    difference-in-differences (estimate, interval, claims behind it) and statement."""
    found = service.status(ctx.db, input.id)
    return StatusOut.model_validate(
        {
            **ExecutionOut.model_validate(found.intervention).model_dump(),
            "pattern_key": found.intervention.pattern_key,
            "action_key": found.intervention.action_key,
            "evidence_count": found.evidence_count,
            "latest_evidence": found.latest,
        }
    )
