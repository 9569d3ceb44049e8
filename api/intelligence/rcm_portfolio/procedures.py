"""rcmPortfolio.*: the organization's clients side by side. These read the marts at organization
level (every client of the caller's organization the caller's membership reaches), never beyond it."""

from __future__ import annotations

from api.core.errors import InvalidInput
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.rcm_portfolio import queries
from api.intelligence.rcm_portfolio.schemas import ClientSeries, CompareIn, CompareOut, OverviewIn, OverviewOut
from api.platform.organizations import service as organizations
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("rcmPortfolio")


def _clients(ctx: Context) -> dict[int, str]:
    # A membership reaching only some clients sees only those (open_marts limits the mart rows the same way).
    return organizations.client_names(ctx.db, ctx.tenant.reach)


@router.query("overview")
def overview(ctx: Context, input: OverviewIn) -> OverviewOut:
    """Per client of the organization you reach: volume, billed and paid, initial denial and overturn
    rates, recovered money, cost of work and ROI; plus the total of those clients."""
    clients = _clients(ctx)
    with open_marts(ctx, *queries.PORTFOLIO_MARTS, organization_wide=True) as m:
        rows, totals = queries.overview(m, input, clients)
        snap = snapshot_of(m)
    return OverviewOut(snapshot=snap, clients=rows, totals=totals)


@router.query("compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """One KPI month by month for each client of the organization you reach (or the clients listed; one
    you do not reach is BAD_REQUEST like one of another organization)."""
    clients = _clients(ctx)
    wanted = input.client_ids or list(clients)
    unknown = [c for c in wanted if c not in clients]
    if unknown:
        raise InvalidInput(f"Invalid input: 'clientIds': {unknown[0]} is not a client of this organization")
    with open_marts(ctx, *queries.COMPARE_MARTS, organization_wide=True) as m:
        series = queries.compare(m, input, input.metric, wanted)
        snap = snapshot_of(m)
    return CompareOut(
        snapshot=snap,
        metric=input.metric,
        clients=[ClientSeries(client_id=c, client_name=clients[c], points=series[c]) for c in wanted],
    )
