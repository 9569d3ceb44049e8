"""ROI figures from fct_roi_monthly, shared by roiScorecard, clientRoiPortal and rcmPortfolio."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from api.infra.marts.fields import RoiFigures
from api.infra.marts.inputs import MonthRange, month_label
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.roi_scorecard.schemas import RoiMonth

ROI_MARTS = ("fct_roi_monthly",)
TOTALS_SQL = """
    select coalesce(sum(denials_worked), 0) as denials_worked, sum(cost_of_work) as cost_of_work,
           coalesce(sum(claims_recovered), 0) as claims_recovered, sum(recovered_amount) as recovered_amount
    from fct_roi_monthly where {where}"""


def roi(recovered: Decimal, cost: Decimal) -> float | None:
    """(recovered - cost) / cost rounded to 6 places; None without cost."""
    return round(float((recovered - cost) / cost), 6) if cost else None


def figures(row: dict[str, Any]) -> dict[str, Any]:
    """ROI figures with net benefit and roi recomputed from the summed money (exact); missing sums count as zero."""
    cost = Decimal(row.get("cost_of_work") or 0)
    recovered = Decimal(row.get("recovered_amount") or 0)
    return {
        "denials_worked": int(row.get("denials_worked") or 0),
        "claims_recovered": int(row.get("claims_recovered") or 0),
        "cost_of_work": cost,
        "recovered_amount": recovered,
        "net_benefit": recovered - cost,
        "roi": roi(recovered, cost),
    }


def totals(m: ScopedMarts, months: MonthRange) -> RoiFigures:
    """The ROI figures summed over the months."""
    where, params = months.month_params("month")
    return RoiFigures.model_validate(figures(m.one(TOTALS_SQL.format(where=where), params)))


def monthly(m: ScopedMarts, months: MonthRange) -> list[RoiMonth]:
    """The ROI figures month by month, oldest first."""
    where, params = months.month_params("month")
    rows = m.rows(
        f"""select month, sum(denials_worked) as denials_worked, sum(cost_of_work) as cost_of_work,
                   sum(claims_recovered) as claims_recovered, sum(recovered_amount) as recovered_amount
            from fct_roi_monthly where {where} group by month order by month""",
        params,
    )
    return [RoiMonth.model_validate({"month": month_label(r["month"]), **figures(r)}) for r in rows]
