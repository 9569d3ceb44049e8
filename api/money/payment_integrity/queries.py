"""Payments against contract terms from fct_service_lines and fct_claim_reconciliation for
paymentIntegrity.*."""

from __future__ import annotations

from collections.abc import Collection
from decimal import Decimal
from typing import Any, Literal

from api.infra.marts.inputs import page_rows, payer_filter
from api.infra.marts.reader import MartRow, ScopedMarts
from api.infra.marts.serving import to_money
from api.money.payment_integrity.schemas import ClaimVariance, ExpectedClaim, ExpectedLine, VariancesIn

LINES_MART = "fct_service_lines"
CLAIM_MARTS = (LINES_MART, "fct_claim_reconciliation")
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
        select claim_key, any_value(payer_key) as payer_key, max(payment_date) as payment_date, count(*) as lines,
               list_sort(list_distinct(list(procedure_code))) as procedure_codes,
               sum(expected_allowed_amount) as expected_allowed_amount, sum(allowed_amount) as allowed_amount,
               sum(paid_amount) as paid_amount, sum(allowed_variance) as variance_amount
        from {LINES_MART} where {where} group by claim_key{having}"""
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
        f"""select sum(allowed_variance) as v from {LINES_MART}
            where claim_key = $c and not is_reversal and allowed_variance {_sign(direction)} 0""",
        {"c": claim_key},
    )
    return None if row["v"] is None else Decimal(row["v"])


def expected_reimbursement(m: ScopedMarts, claim_key: str) -> tuple[ExpectedClaim, list[ExpectedLine]] | None:
    """The claim against its contract and its lines of the latest adjudication; None when it is not in
    the snapshot."""
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
        select line_index, procedure_code, cast(units as double) as units, charge_amount, expected_allowed_amount,
               allowed_amount, paid_amount, patient_responsibility, allowed_variance as variance_amount
        from {LINES_MART} where claim_key = $c and not is_reversal
          and remittance_claim_key = (select max_by(remittance_claim_key, payment_date) from {LINES_MART}
                                      where claim_key = $c and not is_reversal)
        order by line_index""",
        {"c": claim_key},
    )
    return ExpectedClaim.model_validate(claim), lines
