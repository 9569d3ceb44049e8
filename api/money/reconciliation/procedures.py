"""reconciliation.*: claim-to-remittance matching from the marts (fct_claim_reconciliation,
fct_remittance_claims) and manual matches recorded by people."""

from __future__ import annotations

from sqlalchemy import func, select

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.money.reconciliation import queries
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

router = rpc.namespace("reconciliation")


@router.query("summary")
def summary(ctx: Context, input: SummaryIn) -> SummaryOut:
    """Claims by match status (matched, charge_mismatch, awaiting_remittance, remittance_without_claim)
    with billed and paid money, the match rate, and how many payments were matched by hand."""
    with open_marts(ctx, queries.CLAIM_MART) as m:
        found = queries.summary(m, input)
        snap = snapshot_of(m)
    manual = ctx.db.scalar(select(func.count()).select_from(ManualMatch)) or 0
    return SummaryOut(
        snapshot=snap,
        claims=found.claims,
        matched_claims=found.matched_claims,
        match_rate=rate(found.matched_claims, found.claims),
        manually_matched=int(manual),
        buckets=found.buckets,
    )


@router.query("unmatchedRemittances")
def unmatched_remittances(ctx: Context, input: UnmatchedIn) -> UnmatchedRemittancesOut:
    """Claim payments (835 CLP) with no submitted claim, or whose charge differs from it, that nobody has
    matched by hand yet; oldest first, paginated."""
    done = list(ctx.db.scalars(select(ManualMatch.remittance_claim_key)))
    with open_marts(ctx, queries.REMITTANCE_MART) as m:
        items, cursor = queries.unmatched_remittances(m, input, done)
        snap = snapshot_of(m)
    return UnmatchedRemittancesOut(snapshot=snap, items=items, next_cursor=cursor)


@router.query("unmatchedClaims")
def unmatched_claims(ctx: Context, input: UnmatchedIn) -> UnmatchedClaimsOut:
    """Submitted claims without a remittance, or whose remitted charge differs, excluding claims a
    payment was matched to by hand; oldest first, paginated."""
    done = list(ctx.db.scalars(select(ManualMatch.claim_key)))
    with open_marts(ctx, queries.CLAIM_MART) as m:
        items, cursor = queries.unmatched_claims(m, input, done)
        snap = snapshot_of(m)
    return UnmatchedClaimsOut(snapshot=snap, items=items, next_cursor=cursor)


@router.mutation("matchManually")
def match_manually(ctx: Context, input: MatchManuallyIn) -> ManualMatchOut:
    """Record that an unmatched claim payment belongs to a submitted claim (a mistyped patient control
    number, a split claim). The payment must be unmatched and the claim submitted, in the current
    snapshot; a payment is matched by hand once (CONFLICT after)."""
    with open_marts(ctx, queries.REMITTANCE_MART, queries.CLAIM_MART) as m:
        status = queries.remittance_match_status(m, input.remittance_claim_key)
        claim_found = queries.submitted_claim_exists(m, input.claim_key)
    if status is None:
        raise NotFound("Claim payment was not found in this client's current snapshot")
    if status not in queries.UNMATCHED_REMITS:
        raise PreconditionFailed("This claim payment is already matched to its claim")
    if not claim_found:
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
