"""ROI figures from fct_roi_monthly, shared by roiScorecard, clientRoiPortal and rcmPortfolio."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import MonthRange, month_label

TOTALS_SQL = """
    select coalesce(sum(denials_worked), 0) as denials_worked, sum(cost_of_work) as cost_of_work,
           coalesce(sum(claims_recovered), 0) as claims_recovered, sum(recovered_amount) as recovered_amount
    from fct_roi_monthly where {where}"""


def figures(row: dict[str, Any]) -> dict[str, Any]:
    """ROI figures with net benefit and roi recomputed from the summed money (exact)."""
    cost = Decimal(row["cost_of_work"] or 0)
    recovered = Decimal(row["recovered_amount"] or 0)
    return {
        "denials_worked": int(row["denials_worked"] or 0),
        "claims_recovered": int(row["claims_recovered"] or 0),
        "cost_of_work": cost,
        "recovered_amount": recovered,
        "net_benefit": recovered - cost,
        "roi": round(float((recovered - cost) / cost), 6) if cost else None,
    }


def totals(m, input: MonthRange) -> dict[str, Any]:
    where, params = input.month_params("month")
    return figures(m.one(TOTALS_SQL.format(where=where), params))


def monthly(m, input: MonthRange) -> list[dict[str, Any]]:
    where, params = input.month_params("month")
    rows = m.rows(
        f"""select month, sum(denials_worked) as denials_worked, sum(cost_of_work) as cost_of_work,
                             sum(claims_recovered) as claims_recovered, sum(recovered_amount) as recovered_amount
                      from fct_roi_monthly where {where} group by month order by month""",
        params,
    )
    return [{"month": month_label(r["month"]), **figures(r)} for r in rows]
