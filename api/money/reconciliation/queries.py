"""Claim-to-remittance matching from fct_claim_reconciliation and fct_remittance_claims for
reconciliation.*."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeVar

from pydantic import BaseModel

from api.infra.marts.inputs import page_as, payer_filter
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.money.reconciliation.schemas import MatchBucket, SummaryIn, UnmatchedClaim, UnmatchedIn, UnmatchedRemittance

CLAIM_MART = "fct_claim_reconciliation"
REMITTANCE_MART = "fct_remittance_claims"
UNMATCHED_REMITS = ("no_submitted_claim", "charge_mismatch")
R = TypeVar("R", bound=BaseModel)


class MatchSummary(MartRow):
    """Claims by match status, in total and matched."""

    claims: int
    matched_claims: int
    buckets: list[MatchBucket]


def summary(m: ScopedMarts, input: SummaryIn) -> MatchSummary:
    """Claims of the service months by match status with their billed and paid money."""
    where, params = input.month_params("service_month")
    buckets = m.rows_as(
        MatchBucket,
        f"""select match_status, count(*) as claims, sum(billed_amount) as billed_amount,
                   sum(paid_amount) as paid_amount
            from {CLAIM_MART} where {where} group by 1 order by 1""",
        params,
    )
    return MatchSummary(
        claims=sum(b.claims for b in buckets),
        matched_claims=sum(b.claims for b in buckets if b.match_status == "matched"),
        buckets=buckets,
    )


def unmatched_remittances(
    m: ScopedMarts, input: UnmatchedIn, matched_by_hand: Collection[str]
) -> tuple[list[UnmatchedRemittance], str | None]:
    """One page of unmatched claim payments (oldest first), minus those matched by hand."""
    return _unmatched(
        m,
        input,
        UnmatchedRemittance,
        table=REMITTANCE_MART,
        key="remittance_claim_key",
        done=matched_by_hand,
        where="match_status in ('no_submitted_claim', 'charge_mismatch') and not is_reversal",
        order_by="payment_date, remittance_claim_key",
    )


def unmatched_claims(
    m: ScopedMarts, input: UnmatchedIn, matched_by_hand: Collection[str]
) -> tuple[list[UnmatchedClaim], str | None]:
    """One page of submitted claims without a (matching) remittance (oldest first), minus those a payment
    was matched to by hand."""
    return _unmatched(
        m,
        input,
        UnmatchedClaim,
        table=CLAIM_MART,
        key="claim_key",
        done=matched_by_hand,
        where="match_status in ('awaiting_remittance', 'charge_mismatch')",
        order_by="statement_from, claim_key",
    )


def _unmatched(
    m: ScopedMarts,
    input: UnmatchedIn,
    model: type[R],
    *,
    table: str,
    key: str,
    done: Collection[str],
    where: str,
    order_by: str,
) -> tuple[list[R], str | None]:
    """One page of a mart's unmatched rows, minus the keys somebody matched by hand."""
    params: dict[str, Any] = {}
    if done:
        where += f" and not list_contains($done, {key})"
        params["done"] = list(done)
    where = payer_filter(where, params, input.payer)
    return page_as(m, model, f"select * from {table} where {where} order by {order_by}", params, input)


def remittance_match_status(m: ScopedMarts, remittance_claim_key: str) -> str | None:
    """The claim payment's match status; None when it is not in the snapshot."""
    row = m.one_or_none(
        f"select match_status from {REMITTANCE_MART} where remittance_claim_key = $k", {"k": remittance_claim_key}
    )
    return None if row is None else str(row["match_status"])


def submitted_claim_exists(m: ScopedMarts, claim_key: str) -> bool:
    """Whether the snapshot has a submitted claim (an 837) with this key."""
    row = m.one_or_none(
        f"select claim_key from {CLAIM_MART} where claim_key = $c and submitted_billed_amount is not null",
        {"c": claim_key},
    )
    return row is not None
