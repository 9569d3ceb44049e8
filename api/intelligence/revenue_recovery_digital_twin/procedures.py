"""revenueRecoveryDigitalTwin.*: a replayable model of a client's recovery process."""

from __future__ import annotations

from datetime import UTC, datetime

from api.intelligence.revenue_recovery_digital_twin import process, service
from api.intelligence.revenue_recovery_digital_twin.models import RecoveryTwin, RecoveryTwinRun
from api.intelligence.revenue_recovery_digital_twin.schemas import BuildIn, RunIn, RunOut, TwinOut, TwinRef
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueRecoveryDigitalTwin")


def run_out(row: RecoveryTwinRun) -> RunOut:
    return RunOut.model_validate(
        {
            "id": row.id,
            "twin_id": row.twin_id,
            "seed": row.seed,
            "horizon_weeks": row.horizon_weeks,
            "replications": row.replications,
            "scenario": row.scenario,
            "forecast": row.forecast,
            "ran_on": row.ran_on,
            "ran_by": row.ran_by,
        }
    )


def twin_out(twin: RecoveryTwin, runs: list[RecoveryTwinRun]) -> TwinOut:
    return TwinOut.model_validate(
        {
            "id": twin.id,
            "as_of": twin.as_of,
            "window_from": twin.window_from,
            "created_at": twin.created_at,
            "built_by": twin.built_by,
            "cases": twin.cases,
            "seed": twin.seed,
            "calibration": twin.calibration,
            "backtest": twin.backtest,
            "start_backlog": len(twin.start_backlog),
            "runs": [run_out(r) for r in runs],
        }
    )


@router.mutation("build", permission="analyze")
def build(ctx: Context, input: BuildIn) -> TwinOut:
    """Calibrate a twin of the client's recovery process on its case history (windowWeeks, 13..104, ending
    asOf): weekly arrivals per payer x category (Poisson, Garwood interval), P(success) per category (Jeffreys),
    days of work per case, team size, missed deadlines; then backtest it on the window's last quarter (the
    stated error: forecast vs actual backlog and recovered dollars). PRECONDITION_FAILED when the window has no
    case, no recorded outcome or no owner; INVALID_INPUT above 20,000 cases."""
    as_of = input.as_of or datetime.now(UTC).date()
    twin = service.build(ctx.db, as_of=as_of, window_weeks=input.window_weeks, seed=input.seed, user_id=ctx.user_id)
    ctx.note("recovery_twin", twin.id)
    return twin_out(twin, [])


@router.mutation("run", permission="analyze")
def run(ctx: Context, input: RunIn) -> RunOut:
    """Run a twin forward from its backlog at asOf under a change (staffDelta, queue order, skipCategories,
    successMultiplier): per week the backlog and recovered dollars, with 95% predictive intervals over the
    replications (parameters drawn from their posteriors each time). The same seed gives the same answer. Caps:
    horizonWeeks <= 52, replications <= 500, and at most 150,000 simulated cases per run (INVALID_INPUT)."""
    scenario = process.Scenario(
        staff_delta=input.staff_delta,
        order=input.order,
        skip_categories=tuple(input.skip_categories),
        success_multiplier=input.success_multiplier,
    )
    request = service.RunRequest(input.twin_id, scenario, input.horizon_weeks, input.replications, input.seed)
    row = service.run(ctx.db, request, user_id=ctx.user_id)
    ctx.note("recovery_twin_run", row.id)
    return run_out(row)


@router.query("get")
def get(ctx: Context, input: TwinRef) -> TwinOut:
    """A twin of the client: its calibration with every parameter's interval, its backtest and its latest runs."""
    return twin_out(service.get_twin(ctx.db, input.id), service.runs_of(ctx.db, input.id))
