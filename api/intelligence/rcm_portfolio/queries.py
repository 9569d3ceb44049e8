"""The organization's clients side by side from fct_kpis_monthly and fct_roi_monthly (organization-wide
scope) for rcmPortfolio.*."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import MonthRange, month_text
from api.infra.marts.serving import rate
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.rcm_portfolio.schemas import ClientFigures, ComparePoint
from api.intelligence.roi_scorecard.queries import roi

PORTFOLIO_MARTS = ("fct_kpis_monthly", "fct_roi_monthly")
COMPARE_MARTS = ("fct_kpis_monthly",)
# Rate metrics: numerator and denominator columns of fct_kpis_monthly.
RATES = {
    "initial_denial_rate": ("initially_denied_claims", "claims_adjudicated"),
    "first_pass_yield": ("clean_claims", "claims_adjudicated"),
    "overturn_rate": ("overturned_claims", "initially_denied_claims"),
}
_KPI_SQL = """select {key} as client_id, coalesce(sum(claims_adjudicated), 0) as n, sum(billed_amount) as billed,
                     sum(paid_amount) as paid, coalesce(sum(initially_denied_claims), 0) as denied,
                     coalesce(sum(overturned_claims), 0) as overturned, sum(recovered_amount) as recovered
              from fct_kpis_monthly where {where} {group}"""
_ROI_SQL = """select {key} as client_id, sum(cost_of_work) as cost, sum(recovered_amount) as recovered
              from fct_roi_monthly where {where} {group}"""
TOTAL_CLIENT_ID = 0


def overview(
    m: ScopedMarts, months: MonthRange, clients: Mapping[int, str]
) -> tuple[list[ClientFigures], ClientFigures]:
    """(each of `clients` with its figures, with data or not; the organization total as client 0)."""
    where, params = months.month_params("month")
    per_client = {"key": "client_id", "where": where, "group": "group by client_id"}
    whole = {"key": str(TOTAL_CLIENT_ID), "where": where, "group": ""}
    kpis = {r["client_id"]: r for r in m.rows(_KPI_SQL.format(**per_client), params)}
    costs = {r["client_id"]: r for r in m.rows(_ROI_SQL.format(**per_client), params)}
    rows = [_figures(cid, name, kpis.get(cid, {}), costs.get(cid, {})) for cid, name in clients.items()]
    total = _figures(
        TOTAL_CLIENT_ID, "all clients", m.one(_KPI_SQL.format(**whole), params), m.one(_ROI_SQL.format(**whole), params)
    )
    return rows, total


def _figures(client_id: int, name: str, k: dict[str, Any], r: dict[str, Any]) -> ClientFigures:
    # Recovered money is the KPI mart's; the ROI divides the ROI mart's recovered money by its cost.
    n, denied, overturned = int(k.get("n") or 0), int(k.get("denied") or 0), int(k.get("overturned") or 0)
    cost = Decimal(r.get("cost") or 0)
    return ClientFigures.model_validate(
        {
            "client_id": client_id,
            "client_name": name,
            "claims_adjudicated": n,
            "billed_amount": k.get("billed"),
            "paid_amount": k.get("paid"),
            "initially_denied_claims": denied,
            "initial_denial_rate": rate(denied, n),
            "overturned_claims": overturned,
            "overturn_rate": rate(overturned, denied),
            "recovered_amount": Decimal(k.get("recovered") or 0),
            "cost_of_work": cost,
            "roi": roi(Decimal(r.get("recovered") or 0), cost),
        }
    )


def compare(m: ScopedMarts, months: MonthRange, metric: str, client_ids: list[int]) -> dict[int, list[ComparePoint]]:
    """`metric` month by month for each of `client_ids` (every one present, possibly without points)."""
    where, params = months.month_params("month")
    params["clients"] = client_ids
    rows = m.rows(
        f"""select client_id, month, {_metric_sql(metric)} as value from fct_kpis_monthly
            where {where} and list_contains($clients, client_id)
            group by client_id, month order by client_id, month""",
        params,
    )
    series: dict[int, list[ComparePoint]] = {cid: [] for cid in client_ids}
    for r in rows:
        series[r["client_id"]].append(ComparePoint(month=month_text(r["month"]), value=r["value"]))
    return series


def _metric_sql(metric: str) -> str:
    """The SQL aggregate of `metric` over the months and clients grouped."""
    if metric in RATES:
        num, den = RATES[metric]
        return f"case when sum({den}) = 0 then null else round(sum({num}) / sum({den}), 6) end"
    if metric == "avg_days_to_pay":
        # fct_kpis_monthly holds a monthly mean: weight it by the claims it averages.
        return "sum(avg_days_to_pay * claims_adjudicated) / nullif(sum(claims_adjudicated), 0)"
    return f"cast(sum({metric}) as double)"
