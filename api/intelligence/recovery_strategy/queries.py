"""Reads of fct_payer_denials_monthly for recoveryStrategy.get: one payer x category's denials over the
12 months up to the latest month of the client's snapshot (a snapshot answers the same whatever the day)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from api.infra.snapshot.reader import ScopedMarts

DENIALS_MART = "fct_payer_denials_monthly"
WINDOW_MONTHS = 12


class DenialHistory(BaseModel):
    """The payer x category's denials in the window (zero counts when it had none)."""

    model_config = ConfigDict(frozen=True)

    denied_claims: int
    overturned_claims: int
    denied_amount: Decimal
    from_month: date | None
    to_month: date | None


def denial_history(m: ScopedMarts, payer_key: str, category: str) -> DenialHistory:
    """Denied and overturned claims and denied dollars of `payer_key` (upper-case) x `category` over the
    client's last WINDOW_MONTHS adjudication months."""
    latest = m.one("select max(adjudication_month) as last_month from fct_payer_denials_monthly")["last_month"]
    if latest is None:
        return DenialHistory(
            denied_claims=0, overturned_claims=0, denied_amount=Decimal(0), from_month=None, to_month=None
        )
    first = _months_before(latest, WINDOW_MONTHS - 1)
    row = m.one(
        "select coalesce(sum(denied_claims), 0) as denied_claims, coalesce(sum(overturned_claims), 0) as overturned_claims,"
        " coalesce(sum(denied_amount), 0) as denied_amount from fct_payer_denials_monthly"
        " where upper(payer_key) = $payer and denial_category = $category"
        " and adjudication_month between $first and $last",
        {"payer": payer_key, "category": category, "first": first, "last": latest},
    )
    return DenialHistory(
        denied_claims=int(row["denied_claims"]),
        overturned_claims=int(row["overturned_claims"]),
        denied_amount=Decimal(row["denied_amount"]),
        from_month=first,
        to_month=latest,
    )


def _months_before(month: date, count: int) -> date:
    index = month.year * 12 + month.month - 1 - count
    return date(index // 12, index % 12 + 1, 1)
