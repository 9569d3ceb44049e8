"""paymentIntegrity.*: payments against contract terms. The contract expectation comes from the marts:
per claim from fct_claim_pricing (DRG case rate, per diem) and per service line from fct_service_lines
(fee schedule, percent of charges), priced with the client's uploaded terms (the contract_terms seed
for payers without any); a claim is underpaid when it was allowed below contract and overpaid when above."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.serving import open_marts, snapshot_of
from api.money.payment_integrity import queries
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

router = rpc.namespace("paymentIntegrity")


def _variances(ctx: Context, direction: queries.Direction, input: VariancesIn) -> VariancesOut:
    flagged = set(ctx.db.scalars(select(VarianceFlag.claim_key).where(VarianceFlag.direction == direction)))
    with open_marts(ctx, *queries.VARIANCE_MARTS) as m:
        items, cursor, totals = queries.variances(m, direction, input, flagged)
        snap = snapshot_of(m)
    return VariancesOut(
        snapshot=snap, items=items, next_cursor=cursor, claims=totals.claims, total_variance=totals.total_variance
    )


@router.query("underpayments")
def underpayments(ctx: Context, input: VariancesIn) -> VariancesOut:
    """Claims whose service lines were allowed below the contracted amount, largest shortfall first,
    with the total shortfall over all pages. Filter by payment month, payer, procedure, minimum."""
    return _variances(ctx, "underpayment", input)


@router.query("overpayments")
def overpayments(ctx: Context, input: VariancesIn) -> VariancesOut:
    """Claims whose service lines were allowed above the contracted amount, largest excess first."""
    return _variances(ctx, "overpayment", input)


@router.mutation("flagVariance")
def flag_variance(ctx: Context, input: FlagVarianceIn) -> VarianceFlagOut:
    """Flag a claim's under- or overpayment for follow-up with the payer. The claim must show that
    variance in the current snapshot (PRECONDITION_FAILED otherwise); flagging twice is a CONFLICT."""
    with open_marts(ctx, *queries.CLAIM_MARTS, queries.PRICING_MART) as m:
        exists = queries.claim_exists(m, input.claim_key)
        variance = queries.claim_variance(m, input.claim_key, input.direction)
    if not exists:
        raise NotFound("Claim was not found in this client's current snapshot")
    if variance is None:
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
        variance_amount=variance,
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


@router.query("expectedReimbursement")
def expected_reimbursement(ctx: Context, input: ExpectedReimbursementIn) -> ExpectedReimbursementOut:
    """What the contract says a claim should have been allowed (latest adjudication), against what the
    payer allowed and paid: `pricing` names the term used (id, method, source, effective dates) for a
    claim priced as a whole (DRG case rate, per diem), each line names its own (fee schedule, percent of
    charges); when no term applies the expected amount is null and `pricing.noTermReason` says why."""
    with open_marts(ctx, *queries.EXPECTED_MARTS) as m:
        found = queries.expected_reimbursement(m, input.claim_key)
        if found is None:
            raise NotFound("Claim was not found in this client's current snapshot")
        snap = snapshot_of(m)
    claim, pricing, lines = found
    return ExpectedReimbursementOut(snapshot=snap, pricing=pricing, lines=lines, **claim.model_dump())
