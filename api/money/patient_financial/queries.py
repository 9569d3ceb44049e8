"""Patient responsibility from fct_claim_reconciliation, fct_service_lines and fct_claim_adjustments
for patientFinancial.*."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from api.infra.marts.inputs import page_rows, payer_filter
from api.infra.marts.serving import CENT, to_money
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.money.patient_financial.schemas import BalancesIn, BreakdownIn, PatientBalance, ResponsibilityRow

CLAIM_MARTS = ("fct_claim_reconciliation",)
LINE_MARTS = ("fct_service_lines",)
ADJUSTMENT_MARTS = ("fct_claim_adjustments", "dim_carc")


class BalanceTotals(MartRow):
    """Claims with a patient balance and the balance summed, over all pages."""

    claims: int
    total: Decimal


class Estimate(MartRow):
    """What a payer's paid lines of one procedure say about the patient's share."""

    observed_lines: int
    contract_allowed_amount: Decimal | None
    mean_allowed_amount: Decimal | None
    mean_paid_amount: Decimal | None
    mean_patient_responsibility: Decimal | None
    median_patient_responsibility: Decimal | None
    max_patient_responsibility: Decimal | None


def balances(m: ScopedMarts, input: BalancesIn) -> tuple[list[PatientBalance], str | None, BalanceTotals]:
    """One page of claims with a patient balance, largest first, and the totals over all pages."""
    where, params = input.month_params("adjudication_month")
    where += " and patient_responsibility > 0 and patient_responsibility >= $min_amount"
    params["min_amount"] = input.min_amount
    where = payer_filter(where, params, input.payer)
    sql = f"""select claim_key, payer_key, statement_from, statement_to, billed_amount, paid_amount,
                     patient_responsibility from fct_claim_reconciliation where {where}"""
    totals = m.one(f"select count(*) as n, sum(patient_responsibility) as total from ({sql})", params)
    rows, cursor = page_rows(m, sql + " order by patient_responsibility desc, claim_key", params, input)
    items = [PatientBalance.model_validate(r) for r in rows]
    return items, cursor, BalanceTotals(claims=int(totals["n"]), total=to_money(totals["total"]))


def estimate(m: ScopedMarts, payer: str, procedure_code: str) -> Estimate:
    """Mean, median and maximum of the payer's paid lines of the procedure, with the contracted amount."""
    # Sums and exact order statistics stay DECIMAL; the means are divided in Python with Decimal.
    row = m.one(
        """
        select count(*) as n, sum(allowed_amount) as allowed, sum(paid_amount) as paid,
               sum(patient_responsibility) as pr, quantile_disc(patient_responsibility, 0.5) as pr_median,
               max(patient_responsibility) as pr_max, max_by(expected_allowed_amount, payment_date) as contract
        from fct_service_lines
        where upper(payer_key) = $payer and upper(procedure_code) = $code and not is_reversal and not is_denied""",
        {"payer": payer, "code": procedure_code},
    )
    n = int(row["n"])
    return Estimate(
        observed_lines=n,
        contract_allowed_amount=row["contract"],
        mean_allowed_amount=_mean(row["allowed"], n),
        mean_paid_amount=_mean(row["paid"], n),
        mean_patient_responsibility=_mean(row["pr"], n),
        median_patient_responsibility=row["pr_median"],
        max_patient_responsibility=row["pr_max"],
    )


def _mean(total: Any, n: int) -> Decimal | None:
    return None if not n or total is None else (Decimal(total) / n).quantize(CENT, rounding=ROUND_HALF_UP)


def responsibility_breakdown(m: ScopedMarts, input: BreakdownIn) -> tuple[Decimal, list[ResponsibilityRow]]:
    """(total patient responsibility; its split by reason code, largest first, with each share)."""
    where, params = input.month_params("payment_month")
    where += " and group_code = 'PR'"
    where = payer_filter(where, params, input.payer)
    rows = m.rows(
        f"""
        with pr as (select carc, count(*) as adjustments, count(distinct claim_key) as claims, sum(amount) as amount
                    from fct_claim_adjustments where {where} group by carc)
        select pr.*, (select any_value(d.carc_summary) from dim_carc d where d.carc = pr.carc) as description
        from pr order by amount desc, carc""",
        params,
    )
    total = sum((Decimal(r["amount"]) for r in rows), Decimal("0.00"))
    split = [
        ResponsibilityRow.model_validate({**r, "share": round(float(r["amount"] / total), 6) if total else 0.0})
        for r in rows
    ]
    return total, split
