"""reconciliation.*: claim-to-remittance matching from the marts (fct_claim_reconciliation,
fct_remittance_claims) and manual matches recorded by people."""

from __future__ import annotations

from sqlalchemy import func, select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.money.reconciliation.models import ManualMatch
from api.money.reconciliation.schemas import (
    ManualMatchOut,
    MatchManuallyIn,
    SummaryIn,
    SummaryOut,
    UnmatchedClaimsOut,
    UnmatchedIn,
    UnmatchedRemittancesOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

_UNMATCHED_REMITS = ("no_submitted_claim", "charge_mismatch")


@rpc.query("reconciliation.summary")
def summary(ctx: Context, input: SummaryIn) -> SummaryOut:
    """Claims by match status (matched, charge_mismatch, awaiting_remittance, remittance_without_claim)
    with billed and paid money, the match rate, and how many payments were matched by hand."""
    where, params = input.month_params("service_month")
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        buckets = m.rows(
            f"""select match_status, count(*) as claims, sum(billed_amount) as billed_amount,
                                    sum(paid_amount) as paid_amount
                             from fct_claim_reconciliation where {where} group by 1 order by 1""",
            params,
        )
        snap = snapshot_of(m)
    total = sum(b["claims"] for b in buckets)
    matched = sum(b["claims"] for b in buckets if b["match_status"] == "matched")
    manual = ctx.db.scalar(select(func.count()).select_from(ManualMatch)) or 0
    return SummaryOut(
        snapshot=snap,
        claims=total,
        matched_claims=matched,
        match_rate=rate(matched, total),
        manually_matched=int(manual),
        buckets=buckets,
    )


def _unmatched_page(ctx: Context, input: UnmatchedIn, *, table: str, key: str, done_column, where: str, order_by: str):
    """One page of a mart's unmatched rows, minus the keys somebody matched by hand."""
    done = list(ctx.db.scalars(select(done_column)))
    params: dict = {}
    if done:
        where += f" and not list_contains($done, {key})"
        params["done"] = done
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    with open_marts(ctx, table) as m:
        rows, cursor = page_rows(m, f"select * from {table} where {where} order by {order_by}", params, input)
        return snapshot_of(m), rows, cursor


@rpc.query("reconciliation.unmatchedRemittances")
def unmatched_remittances(ctx: Context, input: UnmatchedIn) -> UnmatchedRemittancesOut:
    """Claim payments (835 CLP) with no submitted claim, or whose charge differs from it, that nobody has
    matched by hand yet; oldest first, paginated."""
    snap, rows, cursor = _unmatched_page(
        ctx,
        input,
        table="fct_remittance_claims",
        key="remittance_claim_key",
        done_column=ManualMatch.remittance_claim_key,
        where="match_status in ('no_submitted_claim', 'charge_mismatch') and not is_reversal",
        order_by="payment_date, remittance_claim_key",
    )
    return UnmatchedRemittancesOut(snapshot=snap, items=rows, next_cursor=cursor)


@rpc.query("reconciliation.unmatchedClaims")
def unmatched_claims(ctx: Context, input: UnmatchedIn) -> UnmatchedClaimsOut:
    """Submitted claims without a remittance, or whose remitted charge differs, excluding claims a
    payment was matched to by hand; oldest first, paginated."""
    snap, rows, cursor = _unmatched_page(
        ctx,
        input,
        table="fct_claim_reconciliation",
        key="claim_key",
        done_column=ManualMatch.claim_key,
        where="match_status in ('awaiting_remittance', 'charge_mismatch')",
        order_by="statement_from, claim_key",
    )
    return UnmatchedClaimsOut(snapshot=snap, items=rows, next_cursor=cursor)


@rpc.mutation("reconciliation.matchManually")
def match_manually(ctx: Context, input: MatchManuallyIn) -> ManualMatchOut:
    """Record that an unmatched claim payment belongs to a submitted claim (a mistyped patient control
    number, a split claim). The payment must be unmatched and the claim submitted, in the current
    snapshot; a payment is matched by hand once (CONFLICT after)."""
    with open_marts(ctx, "fct_remittance_claims", "fct_claim_reconciliation") as m:
        remit = m.one(
            "select match_status from fct_remittance_claims where remittance_claim_key = $k",
            {"k": input.remittance_claim_key},
        )
        claim = m.one(
            """select claim_key from fct_claim_reconciliation
                         where claim_key = $c and submitted_billed_amount is not null""",
            {"c": input.claim_key},
        )
    if remit is None:
        raise NotFound("Claim payment was not found in this client's current snapshot")
    if remit["match_status"] not in _UNMATCHED_REMITS:
        raise PreconditionFailed("This claim payment is already matched to its claim")
    if claim is None:
        raise NotFound("No submitted claim with this claim key in this client's current snapshot")
    if ctx.db.scalar(select(ManualMatch.id).where(ManualMatch.remittance_claim_key == input.remittance_claim_key)):
        raise Conflict("This claim payment is already matched by hand")
    match = ManualMatch(
        remittance_claim_key=input.remittance_claim_key,
        claim_key=input.claim_key,
        note=input.note,
        matched_by=ctx.user_id,
    )
    ctx.db.add(match)
    ctx.db.flush()
    ctx.note(
        "manual_match",
        match.id,
        after={"remittance_claim_key": input.remittance_claim_key, "claim_key": input.claim_key},
    )
    return ManualMatchOut.model_validate(match)
