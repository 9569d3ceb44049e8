"""cashTruth.*: what cash really arrived, by day and payer, against what the contracts say should have
arrived. Cash received is the client's bank deposits when the snapshot has any (basis
``bank_deposits``, dated by deposit date), else the ERA payments (basis ``era``). Expected cash = ERA
payments + contract shortfall on the paid lines; the gap is what did not arrive (the real shortfall).
Provider-level adjustments (835 PLB) are answered apart: recoupments taken back for a named claim
(followed up in arOperations), interest (income) and the other PLB money (issue 24)."""

from __future__ import annotations

from api.infra.marts.serving import snapshot_of
from api.money.cash_truth import queries
from api.money.cash_truth.schemas import ByPayerIn, ByPayerOut, CashIn, DailyOut, GapsIn, GapsOut
from api.money.revenue_reconciliation.deposit_basis import open_cash_marts
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("cashTruth")


@router.query("daily")
def daily(ctx: Context, input: CashIn) -> DailyOut:
    """Cash received per day (bank deposits when the client has any, else ERA BPR02 payment dates),
    with claim payments, PLB money (recoupments and interest apart), the contract shortfall and the gap;
    oldest day first, paginated."""
    with open_cash_marts(ctx, *queries.CASH_MARTS) as (m, basis):
        items, cursor = queries.daily(m, basis, input)
        snap = snapshot_of(m)
    return DailyOut(snapshot=snap, basis=basis, items=items, next_cursor=cursor)


@router.query("byPayer")
def by_payer(ctx: Context, input: ByPayerIn) -> ByPayerOut:
    """Cash received per payer over the payment dates, with expected cash and the gap, largest first,
    and the total over every payer."""
    with open_cash_marts(ctx, *queries.CASH_MARTS) as (m, basis):
        payers, total = queries.by_payer(m, basis, input)
        snap = snapshot_of(m)
    return ByPayerOut(snapshot=snap, basis=basis, payers=payers, total=total)


@router.query("gaps")
def gaps(ctx: Context, input: GapsIn) -> GapsOut:
    """Payer-months where less cash arrived than the contracts imply (the real shortfall; PLB money is not
    one), largest gap first, with the total gap over all pages and, apart, the provider-level
    adjustments of the range."""
    with open_cash_marts(ctx, *queries.CASH_MARTS) as (m, basis):
        items, cursor, total, plb = queries.gaps(m, basis, input)
        snap = snapshot_of(m)
    return GapsOut(
        snapshot=snap, basis=basis, items=items, next_cursor=cursor, total_gap=total, total_provider_adjustments=plb
    )
