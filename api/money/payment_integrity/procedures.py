"""paymentIntegrity.*: payments against contract terms. The contract expectation per service line
comes from fct_service_lines (expected_allowed_amount from the contract_terms seed); a claim is
underpaid when its lines were allowed below contract and overpaid when above."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import open_marts, snapshot_of
from api.money.payment_integrity.models import VarianceFlag
from api.money.payment_integrity.schemas import (
    ExpectedReimbursementIn,
    ExpectedReimbursementOut,
    FlagVarianceIn,
    VarianceFlagOut,
    VariancesIn,
    VariancesOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MART = "fct_service_lines"


def _variance_sql(direction: str, input: VariancesIn) -> tuple[str, dict]:
    where, params = input.month_params("payment_month")
    sign = "<" if direction == "underpayment" else ">"
    where += f" and not is_reversal and allowed_variance {sign} 0"
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
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
        from {_MART} where {where} group by claim_key{having}"""
    return sql, params


def _variances(ctx: Context, direction: str, input: VariancesIn) -> VariancesOut:
    sql, params = _variance_sql(direction, input)
    flagged = set(ctx.db.scalars(select(VarianceFlag.claim_key).where(VarianceFlag.direction == direction)))
    order = "variance_amount" if direction == "underpayment" else "variance_amount desc"
    with open_marts(ctx, _MART) as m:
        totals = m.one(f"select count(*) as n, sum(variance_amount) as total from ({sql})", params)
        rows, cursor = page_rows(m, f"{sql} order by {order}, claim_key", params, input)
        snap = snapshot_of(m)
    items = [{**r, "flagged": r["claim_key"] in flagged} for r in rows]
    return VariancesOut(
        snapshot=snap, items=items, next_cursor=cursor, claims=int(totals["n"]), total_variance=totals["total"]
    )


@rpc.query("paymentIntegrity.underpayments")
def underpayments(ctx: Context, input: VariancesIn) -> VariancesOut:
    """Claims whose service lines were allowed below the contracted amount, largest shortfall first,
    with the total shortfall over all pages. Filter by payment month, payer, procedure, minimum."""
    return _variances(ctx, "underpayment", input)


@rpc.query("paymentIntegrity.overpayments")
def overpayments(ctx: Context, input: VariancesIn) -> VariancesOut:
    """Claims whose service lines were allowed above the contracted amount, largest excess first."""
    return _variances(ctx, "overpayment", input)


@rpc.mutation("paymentIntegrity.flagVariance")
def flag_variance(ctx: Context, input: FlagVarianceIn) -> VarianceFlagOut:
    """Flag a claim's under- or overpayment for follow-up with the payer. The claim must show that
    variance in the current snapshot (PRECONDITION_FAILED otherwise); flagging twice is a CONFLICT."""
    sign = "<" if input.direction == "underpayment" else ">"
    with open_marts(ctx, _MART, "fct_claim_reconciliation") as m:
        exists = m.one("select 1 as x from fct_claim_reconciliation where claim_key = $c", {"c": input.claim_key})
        row = m.one(
            f"""select sum(allowed_variance) as v from {_MART}
                        where claim_key = $c and not is_reversal and allowed_variance {sign} 0""",
            {"c": input.claim_key},
        )
    if exists is None:
        raise NotFound("Claim was not found in this client's current snapshot")
    if row is None or row["v"] is None:
        raise PreconditionFailed(f"This claim shows no {input.direction} against the contract; nothing to flag")
    if ctx.db.scalar(
        select(VarianceFlag.id).where(
            VarianceFlag.claim_key == input.claim_key, VarianceFlag.direction == input.direction
        )
    ):
        raise Conflict(f"This claim's {input.direction} is already flagged")
    flag = VarianceFlag(
        claim_key=input.claim_key,
        direction=input.direction,
        variance_amount=Decimal(row["v"]),
        reason=input.reason,
        note=input.note,
        status="open",
        flagged_by=ctx.user_id,
    )
    ctx.db.add(flag)
    ctx.db.flush()
    ctx.note(
        "payment_variance_flag",
        flag.id,
        after={"claim_key": input.claim_key, "direction": input.direction, "reason": input.reason},
    )
    return VarianceFlagOut.model_validate(flag)


@rpc.query("paymentIntegrity.expectedReimbursement")
def expected_reimbursement(ctx: Context, input: ExpectedReimbursementIn) -> ExpectedReimbursementOut:
    """What the contract says a claim should have been allowed, line by line (latest adjudication),
    against what the payer allowed and paid."""
    with open_marts(ctx, _MART, "fct_claim_reconciliation") as m:
        claim = m.one(
            """select claim_key, payer_key, billed_amount, expected_allowed_amount, allowed_amount,
                                paid_amount, patient_responsibility, allowed_variance as variance_amount
                         from fct_claim_reconciliation where claim_key = $c""",
            {"c": input.claim_key},
        )
        if claim is None:
            raise NotFound("Claim was not found in this client's current snapshot")
        lines = m.rows(
            f"""
            select line_index, procedure_code, cast(units as double) as units, charge_amount, expected_allowed_amount,
                   allowed_amount, paid_amount, patient_responsibility, allowed_variance as variance_amount
            from {_MART} where claim_key = $c and not is_reversal
              and remittance_claim_key = (select max_by(remittance_claim_key, payment_date) from {_MART}
                                          where claim_key = $c and not is_reversal)
            order by line_index""",
            {"c": input.claim_key},
        )
        snap = snapshot_of(m)
    return ExpectedReimbursementOut(snapshot=snap, lines=lines, **claim)
