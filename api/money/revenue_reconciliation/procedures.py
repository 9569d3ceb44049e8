"""revenueReconciliation.*: three-way cash reconciliation (bank deposit vs ERA payment vs cash posted).

When the client's bank deposits are in the snapshot (basis ``bank_deposits``), each deposit is matched
to its 835 by trace number: matched, amount_mismatch, deposit_without_era or era_without_deposit, with
the ERA payment's posting variance alongside. Without deposits (basis ``era``) the ERA payment stands
for the deposit: a payment is balanced when it equals its claim payments, explained_by_plb when the
difference is exactly the provider-level adjustments (PLB), and unexplained otherwise."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import snapshot_of
from api.money.revenue_reconciliation.deposit_basis import DEPOSITS_MART, Basis, open_cash_marts
from api.money.revenue_reconciliation.models import VarianceResolution
from api.money.revenue_reconciliation.schemas import (
    DepositMatchesIn,
    DepositMatchesOut,
    ResolutionOut,
    ResolveVarianceIn,
    VariancesIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MART = "fct_remittances"
_ERA_SQL = f"""
    select remittance_key as match_key, remittance_key, payer_key, payment_date, trace_number, payment_method,
           cast(null as varchar) as deposit_key, cast(null as date) as deposit_date,
           cast(null as decimal(18, 2)) as deposit_amount,
           check_amount as payment_amount, claims_paid_amount as posted_amount,
           provider_adjustment_amount as provider_adjustments,
           check_amount - claims_paid_amount as posting_variance,
           check_amount - claims_paid_amount as variance_amount,
           case when check_amount = claims_paid_amount then 'balanced'
                when check_amount = claims_paid_amount - provider_adjustment_amount then 'explained_by_plb'
                else 'unexplained' end as status
    from {_MART}"""
# payment_date filters and orders by the cash date (deposit date, or ERA date without a deposit).
_DEPOSIT_SQL = f"""
    select bank_deposit_key as match_key, remittance_key, payer_key, cash_date as payment_date, trace_number,
           payment_method, deposit_key, deposit_date, deposit_amount,
           coalesce(era_amount, 0) as payment_amount, coalesce(posted_amount, 0) as posted_amount,
           coalesce(provider_adjustment_amount, 0) as provider_adjustments,
           coalesce(era_amount, 0) - coalesce(posted_amount, 0) as posting_variance,
           deposit_variance as variance_amount,
           match_status as status
    from {DEPOSITS_MART}"""
_SQL: dict[Basis, str] = {"era": _ERA_SQL, "bank_deposits": _DEPOSIT_SQL}


def _where(input) -> tuple[str, dict]:
    where, params = input.date_params("payment_date")
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    return where, params


def _page(ctx: Context, where: str, params: dict, input, resolved_filter: bool | None) -> DepositMatchesOut:
    resolutions = {r.remittance_key: r for r in ctx.db.scalars(select(VarianceResolution))}
    if resolved_filter is False and resolutions:
        where += " and not list_contains($resolved, match_key)"
        params["resolved"] = list(resolutions)
    with open_cash_marts(ctx, _MART) as (m, basis):
        sql = f"select * from ({_SQL[basis]}) where {where}"
        total = m.one(f"select sum(variance_amount) as v from ({sql})", params)["v"]
        rows, cursor = page_rows(m, sql + " order by payment_date, match_key", params, input)
        snap = snapshot_of(m)
    items = []
    for r in rows:
        res = resolutions.get(r["match_key"])
        items.append(
            {**r, "resolution": res.resolution if res else None, "resolved_at": res.created_at if res else None}
        )
    return DepositMatchesOut(snapshot=snap, basis=basis, items=items, next_cursor=cursor, total_variance=total)


@rpc.query("revenueReconciliation.depositMatches")
def deposit_matches(ctx: Context, input: DepositMatchesIn) -> DepositMatchesOut:
    """Every bank deposit (and every ERA payment without one) of the date range matched to its ERA and the
    cash posted, or, without deposits, every ERA payment against its posted claim payments and PLB; with
    the match status, variance and resolution; oldest first, paginated. `basis` says which."""
    where, params = _where(input)
    if input.status:
        where += " and status = $status"
        params["status"] = input.status
    return _page(ctx, where, params, input, None)


@rpc.query("revenueReconciliation.variances")
def variances(ctx: Context, input: VariancesIn) -> DepositMatchesOut:
    """Rows with a variance (deposit vs ERA on the bank_deposits basis, ERA vs posted on the era basis),
    unresolved ones only unless includeResolved; paginated with the total variance over all pages."""
    where, params = _where(input)
    where += " and variance_amount <> 0"
    return _page(ctx, where, params, input, True if input.include_resolved else False)


@rpc.mutation("revenueReconciliation.resolveVariance")
def resolve_variance(ctx: Context, input: ResolveVarianceIn) -> ResolutionOut:
    """Record how a row's variance was explained (PLB posted, recoupment accepted, ...), by its match_key.
    The row must show a variance in the current snapshot; a variance is resolved once (CONFLICT after)."""
    with open_cash_marts(ctx, _MART) as (m, basis):
        row = m.one(f"select * from ({_SQL[basis]}) where match_key = $k", {"k": input.match_key})
    if row is None:
        raise NotFound("Payment was not found in this client's current snapshot")
    if row["variance_amount"] == 0:
        raise PreconditionFailed("This payment is balanced; there is no variance to resolve")
    if ctx.db.scalar(select(VarianceResolution.id).where(VarianceResolution.remittance_key == input.match_key)):
        raise Conflict("This payment's variance is already resolved")
    res = VarianceResolution(
        remittance_key=input.match_key,
        variance_amount=Decimal(row["variance_amount"]),
        resolution=input.resolution,
        note=input.note,
        resolved_by=ctx.user_id,
    )
    ctx.db.add(res)
    ctx.db.flush()
    ctx.note(
        "revenue_variance_resolution",
        res.id,
        after={"remittance_key": input.match_key, "resolution": input.resolution, "note": input.note},
    )
    return ResolutionOut.model_validate(res)
