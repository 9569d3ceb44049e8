"""rcmPortfolio.*: the organization's clients side by side. These read the marts at organization
level (every client of the caller's organization), never beyond it."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from api.core.errors import InvalidInput
from api.infra.marts.inputs import month_label
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.intelligence.rcm_portfolio.schemas import CompareIn, CompareOut, OverviewIn, OverviewOut
from api.platform.organizations.models import Client
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MARTS = ("fct_kpis_monthly", "fct_roi_monthly")
_RATES = {
    "initial_denial_rate": ("initially_denied_claims", "claims_adjudicated"),
    "clean_claim_rate": ("clean_claims", "claims_adjudicated"),
    "overturn_rate": ("overturned_claims", "initially_denied_claims"),
}


def _clients(ctx: Context) -> dict[int, str]:
    # Client is OrgScoped: the session filter keeps this to the caller's organization.
    return {c.id: c.name for c in ctx.db.scalars(select(Client).order_by(Client.name))}


def _figures(client_id: int, name: str, k: dict, r: dict) -> dict:
    n, denied, overturned = int(k.get("n") or 0), int(k.get("denied") or 0), int(k.get("overturned") or 0)
    cost, recovered = Decimal(r.get("cost") or 0), Decimal(k.get("recovered") or 0)
    return {
        "client_id": client_id,
        "client_name": name,
        "claims_adjudicated": n,
        "billed_amount": k.get("billed"),
        "paid_amount": k.get("paid"),
        "initially_denied_claims": denied,
        "initial_denial_rate": rate(denied, n),
        "overturned_claims": overturned,
        "overturn_rate": rate(overturned, denied),
        "recovered_amount": recovered,
        "cost_of_work": cost,
        "roi": round(float((Decimal(r.get("recovered") or 0) - cost) / cost), 6) if cost else None,
    }


@rpc.query("rcmPortfolio.overview")
def overview(ctx: Context, input: OverviewIn) -> OverviewOut:
    """Per client of the organization: volume, billed and paid, initial denial and overturn rates,
    recovered money, cost of work and ROI; plus the organization total."""
    clients = _clients(ctx)
    where, params = input.month_params("month")
    kpi_sql = f"""select {{key}} as client_id, coalesce(sum(claims_adjudicated), 0) as n, sum(billed_amount) as billed,
                         sum(paid_amount) as paid, coalesce(sum(initially_denied_claims), 0) as denied,
                         coalesce(sum(overturned_claims), 0) as overturned, sum(recovered_amount) as recovered
                  from fct_kpis_monthly where {where} {{group}}"""
    roi_sql = f"""select {{key}} as client_id, sum(cost_of_work) as cost, sum(recovered_amount) as recovered
                  from fct_roi_monthly where {where} {{group}}"""
    with open_marts(ctx, *_MARTS, organization_wide=True) as m:
        kpis = {r["client_id"]: r for r in m.rows(kpi_sql.format(key="client_id", group="group by client_id"), params)}
        roi = {r["client_id"]: r for r in m.rows(roi_sql.format(key="client_id", group="group by client_id"), params)}
        k_all = m.one(kpi_sql.format(key="0", group=""), params)
        r_all = m.one(roi_sql.format(key="0", group=""), params)
        snap = snapshot_of(m)
    rows = [_figures(cid, name, kpis.get(cid, {}), roi.get(cid, {})) for cid, name in clients.items()]
    return OverviewOut(snapshot=snap, clients=rows, totals=_figures(0, "all clients", k_all or {}, r_all or {}))


@rpc.query("rcmPortfolio.compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """One KPI month by month for each client of the organization (or the clients listed)."""
    clients = _clients(ctx)
    wanted = input.client_ids or list(clients)
    unknown = [c for c in wanted if c not in clients]
    if unknown:
        raise InvalidInput(f"Invalid input: 'clientIds': {unknown[0]} is not a client of this organization")
    where, params = input.month_params("month")
    params["clients"] = wanted
    if input.metric in _RATES:
        num, den = _RATES[input.metric]
        value = f"case when sum({den}) = 0 then 0.0 else round(sum({num}) / sum({den}), 6) end"
    elif input.metric == "avg_days_to_pay":
        value = "sum(avg_days_to_pay * claims_adjudicated) / nullif(sum(claims_adjudicated), 0)"
    else:
        value = f"cast(sum({input.metric}) as double)"
    with open_marts(ctx, "fct_kpis_monthly", organization_wide=True) as m:
        rows = m.rows(
            f"""select client_id, month, {value} as value from fct_kpis_monthly
                          where {where} and list_contains($clients, client_id)
                          group by client_id, month order by client_id, month""",
            params,
        )
        snap = snapshot_of(m)
    series = {cid: [] for cid in wanted}
    for r in rows:
        series[r["client_id"]].append({"month": month_label(r["month"]), "value": r["value"]})
    return CompareOut(
        snapshot=snap,
        metric=input.metric,
        clients=[{"client_id": c, "client_name": clients[c], "points": series[c]} for c in wanted],
    )
