"""KPI reads over fct_kpis_monthly and fct_claim_reconciliation for analytics.*."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import MonthRange, month_label
from api.infra.marts.reader import ScopedMarts
from api.infra.marts.serving import money_ratio, rate, round_days, to_money
from api.intelligence.analytics.schemas import BreakdownRow, Kpis, TrendPoint

KPI_MARTS = ("fct_kpis_monthly", "fct_claim_reconciliation")
TREND_MARTS = ("fct_kpis_monthly",)
BREAKDOWN_MARTS = ("fct_claim_reconciliation",)

# Rate metrics: numerator and denominator columns of fct_kpis_monthly.
RATES = {
    "initial_denial_rate": ("initially_denied_claims", "claims_adjudicated"),
    "initial_denial_rate_dollars": ("initial_denied_amount", "billed_amount"),
    "clean_claim_rate": ("clean_claims", "claims_adjudicated"),
    "denial_write_off_pct": ("denial_write_off_amount", "paid_amount + patient_responsibility"),
    "overturn_rate": ("overturned_claims", "initially_denied_claims"),
}
# Breakdown dimensions: the fct_claim_reconciliation expression each one groups on.
DIMENSIONS = {
    "category": "primary_denial_category",
    "carc": "primary_denial_group_code || '-' || primary_denial_carc",
    "payer": "payer_key",
    "group_code": "primary_denial_group_code",
    "hard_or_soft": "primary_denial_hard_or_soft",
    "preventable": "cast(primary_denial_preventable as varchar)",
    "claim_type": "claim_type",
}


def kpis(m: ScopedMarts, months: MonthRange) -> tuple[int, Kpis]:
    """(months covered, the KPIs summed over them). Days to pay average the claims of those months."""
    where, params = months.month_params("month")
    row = m.one(
        f"""
        select count(*) as months, coalesce(sum(claims_adjudicated), 0) as claims_adjudicated,
               sum(billed_amount) as billed_amount, sum(paid_amount) as paid_amount,
               sum(patient_responsibility) as patient_responsibility,
               coalesce(sum(initially_denied_claims), 0) as initially_denied_claims,
               sum(initial_denied_amount) as initial_denied_amount,
               coalesce(sum(clean_claims), 0) as clean_claims,
               sum(denial_write_off_amount) as denial_write_off_amount,
               coalesce(sum(overturned_claims), 0) as overturned_claims,
               sum(recovered_amount) as recovered_amount
        from fct_kpis_monthly where {where}""",
        params,
    )
    adj_where, _ = months.month_params("adjudication_month")
    days = m.one(
        f"""select avg(days_to_pay) as d from fct_claim_reconciliation
            where adjudication_month is not null and {adj_where}""",
        params,
    )
    n, denied = int(row["claims_adjudicated"]), int(row["initially_denied_claims"])
    clean, overturned = int(row["clean_claims"]), int(row["overturned_claims"])
    revenue = (row["paid_amount"] or 0) + (row["patient_responsibility"] or 0)
    values = Kpis.model_validate(
        {
            **row,
            "claims_adjudicated": n,
            "initially_denied_claims": denied,
            "clean_claims": clean,
            "overturned_claims": overturned,
            "initial_denial_rate": rate(denied, n),
            "initial_denial_rate_dollars": money_ratio(row["initial_denied_amount"], row["billed_amount"] or 0),
            "clean_claim_rate": rate(clean, n),
            "denial_write_off_pct": money_ratio(row["denial_write_off_amount"], revenue),
            "overturn_rate": rate(overturned, denied),
            "avg_days_to_pay": round_days(days["d"]),
        }
    )
    return int(row["months"]), values


def trend(m: ScopedMarts, months: MonthRange, metric: str) -> list[TrendPoint]:
    """`metric` month by month; a rate carries its numerator and denominator."""
    where, params = months.month_params("month")
    if metric in RATES:
        num, den = RATES[metric]
        select = f"cast({num} as double) as numerator, cast({den} as double) as denominator"
    else:
        select = f"cast({metric} as double) as value"
    rows = m.rows(f"select month, {select} from fct_kpis_monthly where {where} order by month", params)
    return [TrendPoint.model_validate(_point(r, is_rate=metric in RATES)) for r in rows]


def _point(row: dict[str, Any], *, is_rate: bool) -> dict[str, Any]:
    if not is_rate:
        return {"month": month_label(row["month"]), "value": row["value"]}
    num, den = row["numerator"], row["denominator"]
    return {
        "month": month_label(row["month"]),
        "value": round(num / den, 6) if den else 0.0,
        "numerator": num,
        "denominator": den,
    }


def breakdown(m: ScopedMarts, months: MonthRange, by: str, limit: int) -> tuple[int, Decimal, list[BreakdownRow]]:
    """(initially denied claims, their denied amount, the largest groups by dimension `by`)."""
    where, params = months.month_params("adjudication_month")
    key = DIMENSIONS[by]
    total = m.one(
        f"""select count(*) as n, sum(initial_denied_amount) as amount from fct_claim_reconciliation
            where initially_denied and {where}""",
        params,
    )
    rows = m.rows(
        f"""
        select coalesce({key}, 'unknown') as key, count(*) as denied_claims,
               sum(initial_denied_amount) as denied_amount,
               count(*) filter (where overturned) as overturned_claims,
               sum(recovered_amount) as recovered_amount
        from fct_claim_reconciliation where initially_denied and {where}
        group by 1 order by denied_claims desc, denied_amount desc, key limit {int(limit)}""",
        params,
    )
    n = int(total["n"])
    groups = [BreakdownRow.model_validate({**r, "share_of_denials": rate(r["denied_claims"], n)}) for r in rows]
    return n, to_money(total["amount"]), groups
