"""revenueSimulation.*: what-if over the published claims history (fct_claim_payers): prevent a share of a
denial category or CARC, appeal or write off a payer x category, or shorten a payer's appeal limit, and
see the revenue effect with a bootstrap interval, reproducible from its seed and stored with its snapshot."""

from __future__ import annotations

from typing import Any

from api.core.errors import InvalidInput
from api.infra.marts.serving import open_marts
from api.intelligence.action_taxonomy import catalogue
from api.intelligence.revenue_simulation import queries, service, whatif
from api.intelligence.revenue_simulation.models import RevenueSimulation
from api.intelligence.revenue_simulation.schemas import (
    MAX_ROWS,
    PreventionScenario,
    SimulateIn,
    SimulationOut,
    SimulationRef,
    StrategyScenario,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueSimulation")


def _scenario(given: SimulateIn) -> whatif.Scenario:
    s = given.scenario
    if isinstance(s, PreventionScenario):
        return whatif.Prevention(s.share)
    if isinstance(s, StrategyScenario):
        cost = s.cost_per_appeal
        if cost is None:  # the taxonomy's first-level appeal: effort hours x cost per hour (assumption)
            cost = catalogue.effort_cost(catalogue.BY_KEY["appeal-level-1"].effort_hours)
        return whatif.Strategy(s.payer, s.category, s.action, float(cost))
    return whatif.Rule(s.payer, s.appeal_limit_days)


def _out(row: RevenueSimulation) -> SimulationOut:
    snapshot = {"id": row.snapshot_id, "builtAt": row.snapshot_built_at, "runId": row.snapshot_run_id}
    fields = {"id": row.id, "createdAt": row.created_at, "seed": row.seed, "replications": row.replications}
    return SimulationOut.model_validate({**row.result, **fields, "scenario": row.scenario, "snapshot": snapshot})


@router.mutation("simulate", permission="analyze")
def simulate(ctx: Context, input: SimulateIn) -> SimulationOut:
    """Run a what-if over the claim x payer rows of the adjudication months (at most 50,000 rows; narrow the
    months or the payer beyond, INVALID_INPUT) and store it: the baseline revenue (what the payers paid),
    the scenario's revenue and effect, and the effect's 95% bootstrap percentile interval (100..2000
    replications, numpy PCG64 from the seed: the same seed on the same snapshot gives the same interval),
    with the snapshot (id, builtAt, runId) it ran on. PRECONDITION_FAILED without a published snapshot."""
    scenario = _scenario(input)
    target: dict[str, Any] = {"category": None, "carc": None}
    if isinstance(input.scenario, PreventionScenario):
        target = {"category": input.scenario.category, "carc": input.scenario.carc}
    with open_marts(ctx, *queries.MARTS) as m:
        rows = queries.history(m, input, input.payer, **target, limit=MAX_ROWS + 1)
        snapshot = m.snapshot
    if len(rows) > MAX_ROWS:
        raise InvalidInput(
            f"Invalid input: the months hold more than {MAX_ROWS} claim x payer rows; narrow fromMonth/toMonth or payer"
        )
    seed = service.new_seed() if input.seed is None else input.seed
    found = service.run(rows, scenario, seed=seed, replications=input.replications)
    result = {
        "fromMonth": input.from_month,
        "toMonth": input.to_month,
        "payer": input.payer,
        "rows": found.rows,
        "baselineRevenue": str(found.baseline),
        "scenarioRevenue": str(found.baseline + found.effect),
        "effect": str(found.effect),
        "effectLow": str(found.low),
        "effectHigh": str(found.high),
    }
    ran = service.Ran(
        kind=input.scenario.kind,
        seed=seed,
        replications=input.replications,
        snapshot_id=snapshot.path.name,
        snapshot_built_at=snapshot.built_at,
        snapshot_run_id=snapshot.run_id,
        scenario=input.scenario.model_dump(mode="json", by_alias=True),
        result=result,
    )
    row = service.store(ctx.db, ran, user_id=ctx.user_id)
    ctx.note("revenue_simulation", row.id)
    return _out(row)


@router.query("get")
def get(ctx: Context, input: SimulationRef) -> SimulationOut:
    """A stored simulation of the client, exactly as it was answered (NOT_FOUND for another client's)."""
    return _out(service.get(ctx.db, input.id))
