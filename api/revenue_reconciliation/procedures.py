"""revenueReconciliation.*: each payment (ERA check/EFT) against the cash posted to claims. A payment
is balanced when it equals its claim payments, explained_by_plb when the difference is exactly the
provider-level adjustments (PLB), and unexplained otherwise. Bank deposit files are not yet in the
warehouse: the payment amount stands for the expected deposit."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from api.marts.inputs import page_rows
from api.marts.serving import open_marts, snapshot_of
from api.revenue_reconciliation.models import VarianceResolution
from api.revenue_reconciliation.schemas import (
    DepositMatchesIn,
    DepositMatchesOut,
    ResolutionOut,
    ResolveVarianceIn,
    VariancesIn,
)
from api.rpc.context import Context
from api.rpc.errors import RpcError
from api.rpc.procedure import rpc

_MART = "fct_remittances"
_MATCH_SQL = f"""
    select remittance_key, payer_key, payment_date, trace_number, payment_method,
           check_amount as payment_amount, claims_paid_amount as posted_amount,
           provider_adjustment_amount as provider_adjustments,
           check_amount - claims_paid_amount as variance_amount,
           case when check_amount = claims_paid_amount then 'balanced'
                when check_amount = claims_paid_amount - provider_adjustment_amount then 'explained_by_plb'
                else 'unexplained' end as status
    from {_MART}"""


def _where(input) -> tuple[str, dict]:
    where, params = input.date_params("payment_date")
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    return where, params


def _page(ctx: Context, where: str, params: dict, input, resolved_filter: bool | None) -> DepositMatchesOut:
    resolutions = {r.remittance_key: r for r in ctx.db.scalars(select(VarianceResolution))}
    if resolved_filter is False and resolutions:
        where += " and not list_contains($resolved, remittance_key)"
        params["resolved"] = list(resolutions)
    sql = f"select * from ({_MATCH_SQL}) where {where}"
    with open_marts(ctx, _MART) as m:
        total = m.one(f"select sum(variance_amount) as v from ({sql})", params)["v"]
        rows, cursor = page_rows(m, sql + " order by payment_date, remittance_key", params, input)
        snap = snapshot_of(m)
    items = []
    for r in rows:
        res = resolutions.get(r["remittance_key"])
        items.append({**r, "resolution": res.resolution if res else None, "resolved_at": res.created_at if res else None})
    return DepositMatchesOut(snapshot=snap, items=items, next_cursor=cursor, total_variance=total)


@rpc.query("revenueReconciliation.depositMatches")
def deposit_matches(ctx: Context, input: DepositMatchesIn) -> DepositMatchesOut:
    """Every payment of the date range with its posted claim payments, PLB and variance, its match
    status and resolution; oldest first, paginated."""
    where, params = _where(input)
    if input.status:
        where += " and status = $status"
        params["status"] = input.status
    return _page(ctx, where, params, input, None)


@rpc.query("revenueReconciliation.variances")
def variances(ctx: Context, input: VariancesIn) -> DepositMatchesOut:
    """Payments whose amount differs from the cash posted to claims, unresolved ones only unless
    includeResolved; paginated with the total variance over all pages."""
    where, params = _where(input)
    where += " and variance_amount <> 0"
    return _page(ctx, where, params, input, True if input.include_resolved else False)


@rpc.mutation("revenueReconciliation.resolveVariance")
def resolve_variance(ctx: Context, input: ResolveVarianceIn) -> ResolutionOut:
    """Record how a payment's variance was explained (PLB posted, recoupment accepted, ...). The payment
    must show a variance in the current snapshot; a variance is resolved once (CONFLICT after)."""
    with open_marts(ctx, _MART) as m:
        row = m.one(f"select * from ({_MATCH_SQL}) where remittance_key = $k", {"k": input.remittance_key})
    if row is None:
        raise RpcError("NOT_FOUND", "Payment was not found in this client's current snapshot")
    if row["variance_amount"] == 0:
        raise RpcError("PRECONDITION_FAILED", "This payment is balanced; there is no variance to resolve")
    if ctx.db.scalar(select(VarianceResolution.id).where(VarianceResolution.remittance_key == input.remittance_key)):
        raise RpcError("CONFLICT", "This payment's variance is already resolved")
    res = VarianceResolution(remittance_key=input.remittance_key, variance_amount=Decimal(row["variance_amount"]),
                             resolution=input.resolution, note=input.note, resolved_by=ctx.user_id)
    ctx.db.add(res)
    ctx.db.flush()
    ctx.note("revenue_variance_resolution", res.id, after={"remittance_key": input.remittance_key,
                                                          "resolution": input.resolution, "note": input.note})
    return ResolutionOut.model_validate(res)
