"""revenueReconciliation.*: three-way cash reconciliation (bank deposit vs ERA payment vs cash posted).

When the client's bank deposits are in the snapshot (basis ``bank_deposits``), each deposit is matched
to its 835 by trace number: matched, amount_mismatch, deposit_without_era or era_without_deposit, with
the ERA payment's posting variance alongside. Without deposits (basis ``era``) the ERA payment stands
for the deposit: a payment is balanced when it equals its claim payments, explained_by_plb when the
difference is exactly the provider-level adjustments (PLB), and unexplained otherwise."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.serving import snapshot_of
from api.money.revenue_reconciliation import queries
from api.money.revenue_reconciliation.deposit_basis import open_cash_marts
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

router = rpc.namespace("revenueReconciliation")


@router.query("depositMatches")
def deposit_matches(ctx: Context, input: DepositMatchesIn) -> DepositMatchesOut:
    """Every bank deposit (and every ERA payment without one) of the date range matched to its ERA and the
    cash posted, or, without deposits, every ERA payment against its posted claim payments and PLB; with
    the match status, variance and resolution; oldest first, paginated. `basis` says which."""
    resolutions = _resolutions(ctx)
    with open_cash_marts(ctx, queries.REMITTANCE_MART) as (m, basis):
        items, cursor, total = queries.deposit_matches(m, basis, input, resolutions)
        snap = snapshot_of(m)
    return DepositMatchesOut(snapshot=snap, basis=basis, items=items, next_cursor=cursor, total_variance=total)


@router.query("variances")
def variances(ctx: Context, input: VariancesIn) -> DepositMatchesOut:
    """Rows with a variance (deposit vs ERA on the bank_deposits basis, ERA vs posted on the era basis),
    unresolved ones only unless includeResolved; paginated with the total variance over all pages."""
    resolutions = _resolutions(ctx)
    with open_cash_marts(ctx, queries.REMITTANCE_MART) as (m, basis):
        items, cursor, total = queries.variances(m, basis, input, resolutions)
        snap = snapshot_of(m)
    return DepositMatchesOut(snapshot=snap, basis=basis, items=items, next_cursor=cursor, total_variance=total)


def _resolutions(ctx: Context) -> dict[str, VarianceResolution]:
    return {r.remittance_key: r for r in ctx.db.scalars(select(VarianceResolution))}


@router.mutation("resolveVariance")
def resolve_variance(ctx: Context, input: ResolveVarianceIn) -> ResolutionOut:
    """Record how a row's variance was explained (PLB posted, recoupment accepted, ...), by its match_key.
    The row must show a variance in the current snapshot; a variance is resolved once (CONFLICT after)."""
    with open_cash_marts(ctx, queries.REMITTANCE_MART) as (m, basis):
        variance = queries.match_variance(m, basis, input.match_key)
    if variance is None:
        raise NotFound("Payment was not found in this client's current snapshot")
    if variance == 0:
        raise PreconditionFailed("This payment is balanced; there is no variance to resolve")
    if ctx.db.scalar(select(VarianceResolution.id).where(VarianceResolution.remittance_key == input.match_key)):
        raise Conflict("This payment's variance is already resolved")
    res = VarianceResolution(
        remittance_key=input.match_key,
        variance_amount=variance,
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
