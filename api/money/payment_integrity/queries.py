"""Payments against contract terms from fct_service_lines and fct_claim_reconciliation for
paymentIntegrity.*."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Any, Literal

from api.infra.marts.inputs import page_rows, payer_filter
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.money.payment_integrity.schemas import (
    NO_TERM_EXPLANATIONS,
    ClaimPricing,
    ClaimVariance,
    ExpectedClaim,
    ExpectedLine,
    VariancesIn,
)

LINES_MART = "fct_service_lines"
PRICING_MART = "fct_claim_pricing"
CLAIM_MARTS = (LINES_MART, "fct_claim_reconciliation")
EXPECTED_MARTS = (*CLAIM_MARTS, PRICING_MART)
VARIANCE_MARTS = (LINES_MART, PRICING_MART)
# What is priced against contract, one row per priced unit: each line priced by its own term, and
# each claim priced as a whole (DRG case rate, per diem), whose lines carry no price of their own.
PRICED_ROWS = f"""
    select claim_key, payer_key, payment_date, payment_month, is_reversal, procedure_code, 1 as lines,
           expected_allowed_amount, allowed_amount, paid_amount, allowed_variance
    from {LINES_MART} where pricing_level = 'line'
    union all
    select claim_key, payer_key, payment_date, payment_month, is_reversal, null as procedure_code, line_count as lines,
           expected_allowed_amount, allowed_amount, paid_amount, allowed_variance
    from {PRICING_MART} where pricing_level = 'claim'"""
Direction = Literal["underpayment", "overpayment"]


class VarianceTotals(MartRow):
    """Claims matching the filters and their summed variance, over all pages."""

    claims: int
    total_variance: Decimal


def _sign(direction: Direction) -> str:
    return "<" if direction == "underpayment" else ">"


def _variance_sql(direction: Direction, input: VariancesIn) -> tuple[str, dict[str, Any]]:
    where, params = input.month_params("payment_month")
    where += f" and not is_reversal and allowed_variance {_sign(direction)} 0"
    where = payer_filter(where, params, input.payer)
    if input.procedure_code:
        where += " and upper(procedure_code) = $procedure"
        params["procedure"] = input.procedure_code.upper()
    having = ""
    if input.min_amount is not None:
        having = " having abs(sum(allowed_variance)) >= $min_amount"
        params["min_amount"] = input.min_amount
    sql = f"""
        select claim_key, any_value(payer_key) as payer_key, max(payment_date) as payment_date, sum(lines) as lines,
               list_sort(list_distinct(coalesce(list(procedure_code) filter (where procedure_code is not null), [])))
                   as procedure_codes,
               sum(expected_allowed_amount) as expected_allowed_amount, sum(allowed_amount) as allowed_amount,
               sum(paid_amount) as paid_amount, sum(allowed_variance) as variance_amount
        from ({PRICED_ROWS}) where {where} group by claim_key{having}"""
    return sql, params


def variances(
    m: ScopedMarts, direction: Direction, input: VariancesIn, flagged: Collection[str]
) -> tuple[list[ClaimVariance], str | None, VarianceTotals]:
    """One page of claims paid off contract in `direction`, largest first, marking the `flagged` claim keys."""
    sql, params = _variance_sql(direction, input)
    order = "variance_amount" if direction == "underpayment" else "variance_amount desc"
    totals = m.one(f"select count(*) as n, sum(variance_amount) as total from ({sql})", params)
    rows, cursor = page_rows(m, f"{sql} order by {order}, claim_key", params, input)
    items = [ClaimVariance.model_validate({**r, "flagged": r["claim_key"] in flagged}) for r in rows]
    return items, cursor, VarianceTotals(claims=int(totals["n"]), total_variance=to_money(totals["total"]))


def claim_exists(m: ScopedMarts, claim_key: str) -> bool:
    """Whether the claim is in the client's current snapshot."""
    found = m.one_or_none("select 1 as x from fct_claim_reconciliation where claim_key = $c", {"c": claim_key})
    return found is not None


def claim_variance(m: ScopedMarts, claim_key: str, direction: Direction) -> Decimal | None:
    """The claim's summed variance on its lines off contract in `direction`; None when it has none."""
    row = m.one(
        f"""select sum(allowed_variance) as v from ({PRICED_ROWS})
            where claim_key = $c and not is_reversal and allowed_variance {_sign(direction)} 0""",
        {"c": claim_key},
    )
    return None if row["v"] is None else Decimal(row["v"])


def _term_struct(prefix: str = "") -> str:
    """The term columns of a pricing mart as one struct (null when no term), for ContractTermRef."""
    return f"""case when {prefix}contract_term_id is null then null else struct_pack(
                   term_id := {prefix}contract_term_id, method := {prefix}contract_method,
                   source := {prefix}contract_term_source, effective_from := {prefix}contract_effective_from,
                   effective_to := {prefix}contract_effective_to) end"""


def _pricing(m: ScopedMarts, claim_key: str) -> ClaimPricing | None:
    """How the claim's latest adjudication (not a reversal) was priced; None when it has no remittance."""
    row = m.one_or_none(
        f"""select pricing_level as level, {_term_struct()} as term, drg_code, priced_on,
                   cast(stay_days as integer) as stay_days, expected_allowed_amount, no_term_reason
            from {PRICING_MART} where claim_key = $c and not is_reversal
            order by payment_date desc, remittance_claim_key desc limit 1""",
        {"c": claim_key},
    )
    if row is None:
        return None
    return ClaimPricing.model_validate({**row, "explanation": NO_TERM_EXPLANATIONS.get(row["no_term_reason"] or "")})


def expected_reimbursement(
    m: ScopedMarts, claim_key: str
) -> tuple[ExpectedClaim, ClaimPricing | None, list[ExpectedLine]] | None:
    """The claim against its contract, how its latest adjudication was priced (the term used, or why
    none applies) and its lines of that adjudication, each naming its term; None when it is not in the
    snapshot."""
    claim = m.one_or_none(
        """select claim_key, payer_key, billed_amount, expected_allowed_amount, allowed_amount,
                  paid_amount, patient_responsibility, allowed_variance as variance_amount
           from fct_claim_reconciliation where claim_key = $c""",
        {"c": claim_key},
    )
    if claim is None:
        return None
    lines = m.rows_as(
        ExpectedLine,
        f"""
        select line_index, procedure_code, modifier_1 as modifier, cast(units as double) as units, charge_amount,
               expected_allowed_amount, allowed_amount, allowed_source, paid_amount, patient_responsibility,
               allowed_variance as variance_amount, {_term_struct()} as term
        from {LINES_MART} where claim_key = $c and not is_reversal
          and remittance_claim_key = (select max_by(remittance_claim_key, payment_date) from {LINES_MART}
                                      where claim_key = $c and not is_reversal)
        order by line_index""",
        {"c": claim_key},
    )
    return ExpectedClaim.model_validate(claim), _pricing(m, claim_key), lines
