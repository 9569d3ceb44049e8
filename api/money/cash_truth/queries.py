"""Cash received against cash expected, from fct_remittances (or fct_bank_deposits) and the contract
shortfall of the priced lines and claims (fct_service_lines, fct_claim_pricing), for cashTruth.*."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import DateRange, month_label, page_rows, payer_filter
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import ScopedMarts
from api.money.cash_truth.schemas import CashDay, CashFigures, CashGap, CashIn, CashPayer, GapsIn
from api.money.payment_integrity.queries import PRICED_ROWS, VARIANCE_MARTS
from api.money.revenue_reconciliation.deposit_basis import DEPOSITS_MART, Basis

CASH_MARTS = ("fct_remittances", "fct_provider_adjustments", *VARIANCE_MARTS)
# PLB money per remittance by meaning (X12 835 TR3 PLB03-1, fct_provider_adjustments): recoupments taken
# back for a named claim (followed up as A/R, arOperations) and interest paid (income).
_PLB_BY_REMITTANCE = """(select remittance_key, sum(recouped_amount) as plb_recoupments,
                                sum(interest_amount) as plb_interest
                         from fct_provider_adjustments group by remittance_key)"""
# Per basis: the rows cash is counted from, with payment_date / payment_month / payer_key to group on.
_CASH_ROWS: dict[Basis, str] = {
    # payment_amount, not check_amount: a debit remittance (BPR03 = D, a recoupment) takes money back;
    # counting its BPR02 as received while its reversals lower the claim payments counted it twice.
    "era": f"""select payer_key, payment_date, payment_month, 1 as remittance, payment_amount as received,
                     payment_amount as era_amount, claims_paid_amount, provider_adjustment_amount,
                     coalesce(plb.plb_recoupments, 0) as plb_recoupments, coalesce(plb.plb_interest, 0) as plb_interest
              from fct_remittances left join {_PLB_BY_REMITTANCE} as plb using (remittance_key)""",
    "bank_deposits": f"""select coalesce(payer_key, '(no ERA)') as payer_key, cash_date as payment_date, cash_month as payment_month,
                     case when remittance_key is null then 0 else 1 end as remittance,
                     coalesce(deposit_amount, 0) as received, coalesce(era_amount, 0) as era_amount,
                     coalesce(posted_amount, 0) as claims_paid_amount,
                     coalesce(provider_adjustment_amount, 0) as provider_adjustment_amount,
                     coalesce(plb.plb_recoupments, 0) as plb_recoupments, coalesce(plb.plb_interest, 0) as plb_interest
              from {DEPOSITS_MART} left join {_PLB_BY_REMITTANCE} as plb using (remittance_key)""",
}
# The answer over no remittance at all.
_NO_CASH: dict[str, Any] = {
    "remittances": 0,
    "cash_received": 0,
    "era_payments": 0,
    "claim_payments": 0,
    "provider_adjustments": 0,
    "plb_recoupments": 0,
    "plb_interest": 0,
    "contract_shortfall": 0,
    "cash_expected": 0,
    "gap": 0,
}


def cash_sql(where: str, keys: list[str], basis: Basis = "era") -> str:
    """Cash figures per `keys` (columns of both marts: payer_key, payment_date, payment_month). The gap
    is the real shortfall (contract shortfall + ERA money that did not arrive); provider-level
    adjustments (PLB) are answered apart, never in the gap: a recoupment is claim money taken back
    (A/R), interest is income, the rest provider-level (issue 24)."""
    group = ", ".join(keys)
    join = " and ".join(f"r.{k} is not distinct from s.{k}" for k in keys) if keys else "true"
    select_keys = ", ".join(f"r.{k}" for k in keys) + (", " if keys else "")
    group_by = f"group by {group}" if keys else ""
    return f"""
        with r as (
            select {group}{"," if keys else ""} sum(remittance) as remittances, sum(received) as cash_received,
                   sum(era_amount) as era_payments,
                   sum(claims_paid_amount) as claim_payments, sum(provider_adjustment_amount) as provider_adjustments,
                   sum(plb_recoupments) as plb_recoupments, sum(plb_interest) as plb_interest
            from ({_CASH_ROWS[basis]}) where {where} {group_by}
        ),
        s as (
            select {group}{"," if keys else ""} -sum(allowed_variance) filter (where allowed_variance < 0) as contract_shortfall
            from ({PRICED_ROWS}) where not is_reversal and {where} {group_by}
        )
        select {select_keys}r.remittances, r.cash_received, r.era_payments, r.claim_payments, r.provider_adjustments,
               r.plb_recoupments, r.plb_interest,
               coalesce(s.contract_shortfall, 0) as contract_shortfall,
               r.era_payments + coalesce(s.contract_shortfall, 0) as cash_expected,
               r.era_payments + coalesce(s.contract_shortfall, 0) - r.cash_received as gap
        from r left join s on {join}"""


def daily(m: ScopedMarts, basis: Basis, input: CashIn) -> tuple[list[CashDay], str | None]:
    """One page of cash figures per payment (or deposit) day, oldest first."""
    where, params = input.date_params("payment_date")
    where = payer_filter(where, params, input.payer)
    rows, cursor = page_rows(m, cash_sql(where, ["payment_date"], basis) + " order by r.payment_date", params, input)
    return [CashDay.model_validate(r) for r in rows], cursor


def by_payer(m: ScopedMarts, basis: Basis, dates: DateRange) -> tuple[list[CashPayer], CashFigures]:
    """(cash figures per payer, largest cash received first; the total over every payer)."""
    where, params = dates.date_params("payment_date")
    sql = cash_sql(where, ["payer_key"], basis) + " order by r.cash_received desc, r.payer_key"
    payers = m.rows_as(CashPayer, sql, params)
    total = m.one(cash_sql(where, [], basis), params)
    if total["remittances"] is None:
        total = _NO_CASH
    return payers, CashFigures.model_validate({**total, "remittances": int(total["remittances"] or 0)})


def without(params: dict[str, Any], key: str) -> dict[str, Any]:
    """The parameters but `key` (a statement that does not use it)."""
    return {k: v for k, v in params.items() if k != key}


def gaps(m: ScopedMarts, basis: Basis, input: GapsIn) -> tuple[list[CashGap], str | None, Decimal, Decimal]:
    """(one page of payer-months with a real shortfall of at least minGap, largest first; the cursor; the
    total gap; the provider-level adjustments of every payer-month in the range, apart from the gap)."""
    where, params = input.month_params("payment_month")
    where = payer_filter(where, params, input.payer)
    params["min_gap"] = input.min_gap
    months = cash_sql(where, ["payer_key", "payment_month"], basis)
    sql = f"select * from ({months}) where gap > 0 and gap >= $min_gap"
    total = m.one(f"select sum(gap) as g from ({sql})", params)["g"]
    plb = m.one(f"select sum(provider_adjustments) as p from ({months})", without(params, "min_gap"))["p"]
    rows, cursor = page_rows(m, sql + " order by gap desc, payer_key, payment_month", params, input)
    items = [CashGap.model_validate({**r, "month": month_label(r["payment_month"])}) for r in rows]
    return items, cursor, to_money(total), to_money(plb)
