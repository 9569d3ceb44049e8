"""cashTruth.*: what cash really arrived, by day and payer, against what the contracts say should have
arrived. Cash received is the client's bank deposits when the snapshot has any (basis
``bank_deposits``, dated by deposit date), else the ERA payments (basis ``era``). Expected cash = ERA
payments + contract shortfall on the paid lines + PLB withholdings; the gap is what did not arrive."""

from __future__ import annotations

from api.infra.marts.inputs import month_label, page_rows
from api.infra.marts.serving import snapshot_of
from api.money.cash_truth.schemas import ByPayerIn, ByPayerOut, CashIn, DailyOut, GapsIn, GapsOut
from api.money.revenue_reconciliation.deposit_basis import DEPOSITS_MART, Basis, open_cash_marts
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MARTS = ("fct_remittances", "fct_service_lines")
# Per basis: the rows cash is counted from, with payment_date / payment_month / payer_key to group on.
_CASH_ROWS: dict[Basis, str] = {
    "era": """select payer_key, payment_date, payment_month, 1 as remittance, check_amount as received,
                     check_amount as era_amount, claims_paid_amount, provider_adjustment_amount
              from fct_remittances""",
    "bank_deposits": f"""select coalesce(payer_key, '(no ERA)') as payer_key, cash_date as payment_date, cash_month as payment_month,
                     case when remittance_key is null then 0 else 1 end as remittance,
                     coalesce(deposit_amount, 0) as received, coalesce(era_amount, 0) as era_amount,
                     coalesce(posted_amount, 0) as claims_paid_amount,
                     coalesce(provider_adjustment_amount, 0) as provider_adjustment_amount
              from {DEPOSITS_MART}""",
}


def _cash_sql(where: str, keys: list[str], basis: Basis = "era") -> str:
    """Cash figures per `keys` (columns of both marts: payer_key, payment_date, payment_month)."""
    group = ", ".join(keys)
    join = " and ".join(f"r.{k} is not distinct from s.{k}" for k in keys) if keys else "true"
    select_keys = ", ".join(f"r.{k}" for k in keys) + (", " if keys else "")
    group_by = f"group by {group}" if keys else ""
    return f"""
        with r as (
            select {group}{"," if keys else ""} sum(remittance) as remittances, sum(received) as cash_received,
                   sum(era_amount) as era_payments,
                   sum(claims_paid_amount) as claim_payments, sum(provider_adjustment_amount) as provider_adjustments
            from ({_CASH_ROWS[basis]}) where {where} {group_by}
        ),
        s as (
            select {group}{"," if keys else ""} -sum(allowed_variance) filter (where allowed_variance < 0) as contract_shortfall
            from fct_service_lines where not is_reversal and {where} {group_by}
        )
        select {select_keys}r.remittances, r.cash_received, r.era_payments, r.claim_payments, r.provider_adjustments,
               coalesce(s.contract_shortfall, 0) as contract_shortfall,
               r.era_payments + coalesce(s.contract_shortfall, 0) + r.provider_adjustments as cash_expected,
               r.era_payments + coalesce(s.contract_shortfall, 0) + r.provider_adjustments - r.cash_received as gap
        from r left join s on {join}"""


def _filters(input, column: str = "payment_date") -> tuple[str, dict]:
    where, params = input.date_params(column) if hasattr(input, "date_params") else input.month_params(column)
    if getattr(input, "payer", None):
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    return where, params


@rpc.query("cashTruth.daily")
def daily(ctx: Context, input: CashIn) -> DailyOut:
    """Cash received per day (bank deposits when the client has any, else ERA BPR02 payment dates),
    with claim payments, PLB withholdings, the contract shortfall and the gap to expected cash;
    oldest day first, paginated."""
    where, params = _filters(input)
    with open_cash_marts(ctx, *_MARTS) as (m, basis):
        rows, cursor = page_rows(
            m, _cash_sql(where, ["payment_date"], basis) + " order by r.payment_date", params, input
        )
        snap = snapshot_of(m)
    return DailyOut(snapshot=snap, basis=basis, items=rows, next_cursor=cursor)


@rpc.query("cashTruth.byPayer")
def by_payer(ctx: Context, input: ByPayerIn) -> ByPayerOut:
    """Cash received per payer over the payment dates, with expected cash and the gap, largest first,
    and the total over every payer."""
    where, params = _filters(input)
    with open_cash_marts(ctx, *_MARTS) as (m, basis):
        payers = m.rows(_cash_sql(where, ["payer_key"], basis) + " order by r.cash_received desc, r.payer_key", params)
        total = m.one(_cash_sql(where, [], basis), params)
        snap = snapshot_of(m)
    if total is None or total["remittances"] is None:
        total = {
            "remittances": 0,
            "cash_received": 0,
            "era_payments": 0,
            "claim_payments": 0,
            "provider_adjustments": 0,
            "contract_shortfall": 0,
            "cash_expected": 0,
            "gap": 0,
        }
    total["remittances"] = int(total["remittances"] or 0)
    return ByPayerOut(snapshot=snap, basis=basis, payers=payers, total=total)


@rpc.query("cashTruth.gaps")
def gaps(ctx: Context, input: GapsIn) -> GapsOut:
    """Payer-months where less cash arrived than the contracts imply (shortfall plus withholdings),
    largest gap first, with the total gap over all pages."""
    where, params = _filters(input, "payment_month")
    params["min_gap"] = input.min_gap
    with open_cash_marts(ctx, *_MARTS) as (m, basis):
        sql = f"select * from ({_cash_sql(where, ['payer_key', 'payment_month'], basis)}) where gap > 0 and gap >= $min_gap"
        total = m.one(f"select sum(gap) as g from ({sql})", params)["g"]
        rows, cursor = page_rows(m, sql + " order by gap desc, payer_key, payment_month", params, input)
        snap = snapshot_of(m)
    items = [{**r, "month": month_label(r["payment_month"])} for r in rows]
    return GapsOut(snapshot=snap, basis=basis, items=items, next_cursor=cursor, total_gap=total)
