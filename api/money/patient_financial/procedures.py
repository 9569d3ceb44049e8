"""patientFinancial.*: patient responsibility (group PR adjustments) from the marts: balances per claim,
estimates from what a payer allowed for a procedure, and the split by reason (deductible, coinsurance,
copay...). Identifiers are claim keys only; no patient demographics are served."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.money.patient_financial import queries
from api.money.patient_financial.schemas import (
    BalancesIn,
    BalancesOut,
    BreakdownIn,
    BreakdownOut,
    EstimateIn,
    EstimateOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("patientFinancial")


@router.query("balances")
def balances(ctx: Context, input: BalancesIn) -> BalancesOut:
    """Claims with a patient balance (net patient responsibility > 0), largest first, with the total over
    all pages; filter by adjudication month, payer and minimum amount."""
    with open_marts(ctx, *queries.CLAIM_MARTS) as m:
        items, cursor, totals = queries.balances(m, input)
        snap = snapshot_of(m)
    return BalancesOut(
        snapshot=snap,
        items=items,
        next_cursor=cursor,
        claims=totals.claims,
        total_patient_responsibility=totals.total,
    )


@router.query("estimate")
def estimate(ctx: Context, input: EstimateIn) -> EstimateOut:
    """Estimate a patient's share for a procedure with a payer from that payer's paid lines of the same
    procedure (mean, median, maximum), with the contracted allowed amount."""
    code = input.procedure_code.upper()
    with open_marts(ctx, *queries.LINE_MARTS) as m:
        found = queries.estimate(m, input.payer, code)
        snap = snapshot_of(m)
    return EstimateOut(snapshot=snap, payer_key=input.payer, procedure_code=code, **found.model_dump())


@router.query("responsibilityBreakdown")
def responsibility_breakdown(ctx: Context, input: BreakdownIn) -> BreakdownOut:
    """Patient responsibility adjustments (group PR) by reason code with their description, amount and
    share: deductible (1), coinsurance (2), copay (3) and the rest; largest first."""
    with open_marts(ctx, *queries.ADJUSTMENT_MARTS) as m:
        total, rows = queries.responsibility_breakdown(m, input)
        snap = snapshot_of(m)
    return BreakdownOut(snapshot=snap, total_amount=total, rows=rows)
