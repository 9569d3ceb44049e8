"""The client's results and ROI from fct_kpis_monthly and fct_roi_monthly for clientRoiPortal.*."""

from __future__ import annotations

from typing import Any

from api.infra.marts.inputs import MonthRange, month_text
from api.infra.marts.serving import rate
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.client_roi_portal.schemas import ExportRow, PortalKpis
from api.intelligence.roi_scorecard.queries import figures, monthly
from api.intelligence.roi_scorecard.schemas import RoiMonth

PORTAL_MARTS = ("fct_kpis_monthly", "fct_roi_monthly")


def kpis(m: ScopedMarts, months: MonthRange) -> PortalKpis:
    """The client's volume, initial denial and overturn rates summed over the months."""
    where, params = months.month_params("month")
    k = m.one(
        f"""select coalesce(sum(claims_adjudicated), 0) as n, sum(billed_amount) as billed,
                   sum(paid_amount) as paid, coalesce(sum(initially_denied_claims), 0) as denied,
                   coalesce(sum(overturned_claims), 0) as overturned
            from fct_kpis_monthly where {where}""",
        params,
    )
    n, denied, overturned = int(k["n"]), int(k["denied"]), int(k["overturned"])
    return PortalKpis.model_validate(
        {
            "claims_adjudicated": n,
            "billed_amount": k["billed"],
            "paid_amount": k["paid"],
            "initially_denied_claims": denied,
            "initial_denial_rate": rate(denied, n),
            "overturned_claims": overturned,
            "overturn_rate": rate(overturned, denied),
        }
    )


def export_rows(m: ScopedMarts, months: MonthRange) -> list[ExportRow]:
    """Results and ROI month by month, every month either mart has, oldest first."""
    where, params = months.month_params("month")
    kpi_rows = m.rows(
        f"""select month, claims_adjudicated, billed_amount, paid_amount, initially_denied_claims, overturned_claims
            from fct_kpis_monthly where {where}""",
        params,
    )
    by_month = {month_text(r["month"]): r for r in kpi_rows}
    roi = {r.month: r for r in monthly(m, months)}
    return [_export_row(month, by_month.get(month, {}), roi.get(month)) for month in sorted(set(by_month) | set(roi))]


def _export_row(month: str, k: dict[str, Any], roi: RoiMonth | None) -> ExportRow:
    r = roi.model_dump() if roi else figures({})
    n, denied = int(k.get("claims_adjudicated") or 0), int(k.get("initially_denied_claims") or 0)
    return ExportRow.model_validate(
        {
            "month": month,
            "claims_adjudicated": n,
            "billed_amount": k.get("billed_amount"),
            "paid_amount": k.get("paid_amount"),
            "initially_denied_claims": denied,
            "initial_denial_rate": rate(denied, n),
            "overturned_claims": int(k.get("overturned_claims") or 0),
            "recovered_amount": r["recovered_amount"],
            "cost_of_work": r["cost_of_work"],
            "net_benefit": r["net_benefit"],
            "roi": r["roi"],
        }
    )
