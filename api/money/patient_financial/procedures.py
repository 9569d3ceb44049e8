"""patientFinancial.*: patient responsibility (group PR adjustments) from the marts: balances per claim,
estimates from what a payer allowed for a procedure, and the split by reason (deductible, coinsurance,
copay...). Identifiers are claim keys only; no patient demographics are served."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import CENT, open_marts, snapshot_of
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


@rpc.query("patientFinancial.balances")
def balances(ctx: Context, input: BalancesIn) -> BalancesOut:
    """Claims with a patient balance (net patient responsibility > 0), largest first, with the total over
    all pages; filter by adjudication month, payer and minimum amount."""
    where, params = input.month_params("adjudication_month")
    where += " and patient_responsibility > 0 and patient_responsibility >= $min_amount"
    params["min_amount"] = input.min_amount
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    sql = f"""select claim_key, payer_key, statement_from, statement_to, billed_amount, paid_amount,
                     patient_responsibility from fct_claim_reconciliation where {where}"""
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        totals = m.one(f"select count(*) as n, sum(patient_responsibility) as total from ({sql})", params)
        rows, cursor = page_rows(m, sql + " order by patient_responsibility desc, claim_key", params, input)
        snap = snapshot_of(m)
    return BalancesOut(
        snapshot=snap,
        items=rows,
        next_cursor=cursor,
        claims=int(totals["n"]),
        total_patient_responsibility=totals["total"],
    )


@rpc.query("patientFinancial.estimate")
def estimate(ctx: Context, input: EstimateIn) -> EstimateOut:
    """Estimate a patient's share for a procedure with a payer from that payer's paid lines of the same
    procedure (mean, median, maximum), with the contracted allowed amount."""
    with open_marts(ctx, "fct_service_lines") as m:
        # Sums and exact order statistics stay DECIMAL; the means are divided in Python with Decimal.
        row = m.one(
            """
            select count(*) as n, sum(allowed_amount) as allowed, sum(paid_amount) as paid,
                   sum(patient_responsibility) as pr, quantile_disc(patient_responsibility, 0.5) as pr_median,
                   max(patient_responsibility) as pr_max, max_by(expected_allowed_amount, payment_date) as contract
            from fct_service_lines
            where upper(payer_key) = $payer and upper(procedure_code) = $code and not is_reversal and not is_denied""",
            {"payer": input.payer, "code": input.procedure_code.upper()},
        )
        snap = snapshot_of(m)
    n = int(row["n"])

    def mean(total):
        return None if not n or total is None else (Decimal(total) / n).quantize(CENT, rounding=ROUND_HALF_UP)

    return EstimateOut(
        snapshot=snap,
        payer_key=input.payer,
        procedure_code=input.procedure_code.upper(),
        observed_lines=n,
        contract_allowed_amount=row["contract"],
        mean_allowed_amount=mean(row["allowed"]),
        mean_paid_amount=mean(row["paid"]),
        mean_patient_responsibility=mean(row["pr"]),
        median_patient_responsibility=row["pr_median"],
        max_patient_responsibility=row["pr_max"],
    )


@rpc.query("patientFinancial.responsibilityBreakdown")
def responsibility_breakdown(ctx: Context, input: BreakdownIn) -> BreakdownOut:
    """Patient responsibility adjustments (group PR) by reason code with their description, amount and
    share: deductible (1), coinsurance (2), copay (3) and the rest; largest first."""
    where, params = input.month_params("payment_month")
    where += " and group_code = 'PR'"
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    with open_marts(ctx, "fct_claim_adjustments", "dim_carc") as m:
        rows = m.rows(
            f"""
            with pr as (select carc, count(*) as adjustments, count(distinct claim_key) as claims, sum(amount) as amount
                        from fct_claim_adjustments where {where} group by carc)
            select pr.*, (select any_value(d.carc_summary) from dim_carc d where d.carc = pr.carc) as description
            from pr order by amount desc, carc""",
            params,
        )
        snap = snapshot_of(m)
    total = sum((Decimal(r["amount"]) for r in rows), Decimal("0.00"))
    return BreakdownOut(
        snapshot=snap,
        total_amount=total,
        rows=[{**r, "share": round(float(r["amount"] / total), 6) if total else 0.0} for r in rows],
    )
