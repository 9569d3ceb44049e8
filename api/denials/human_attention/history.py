"""The payer's remittance history of denials and overturns, read from the ledger in one aggregate query.

A *denial* is a claim x payer pair whose first decision (the payer's earliest payment date on the claim,
over its payments and CAS amounts) denied money: a positive `is_denial` entry on that date. Its category
is the category with the most denied money on that date (ties: the first by name). It was *overturned*
when the same payer later paid the claim: a positive `payment` entry with a later payment date, or on the
same date from a later remittance (a later batch). The payer is matched trimmed and without case, as
cases match it. One query per scoring batch (``fit_model``), never one per case.
"""

from __future__ import annotations

from sqlalchemy import and_, case, func, literal, or_, select
from sqlalchemy.orm import Session

from api.denials.human_attention.history_prior import HistoryKey, HistoryPrior
from api.money.ingestion.models import FinancialEntry

#: Entries that are a payer's decision on a claim (not charges, deposits, provider-level adjustments).
DECISION_TYPES = ("payment", "denial", "adjustment", "patient_responsibility", "recoupment")


def overturn_history(db: Session) -> dict[HistoryKey, tuple[int, int]]:
    """(payer, category) -> (denials, overturned) over the selected client's ledger."""
    fe = FinancialEntry
    payer_key = func.upper(func.trim(fe.payer))
    decisions = (
        select(
            fe.claim_key.label("claim_key"),
            payer_key.label("payer_key"),
            func.trim(fe.payer).label("payer_name"),
            fe.payment_date.label("paid_on"),
            fe.batch_id.label("batch_id"),
            fe.entry_type.label("entry_type"),
            fe.amount.label("amount"),
            fe.is_denial.label("is_denial"),
            func.coalesce(fe.denial_category, literal("")).label("category"),
        )
        .where(
            fe.claim_key.is_not(None),
            fe.payer.is_not(None),
            fe.payment_date.is_not(None),
            fe.entry_type.in_(DECISION_TYPES),
        )
        .cte("decisions")
        .prefix_with("MATERIALIZED")
    )
    d = decisions.c
    first = (
        select(d.claim_key, d.payer_key, func.min(d.paid_on).label("first_on"))
        .group_by(d.claim_key, d.payer_key)
        .cte("first_decision")
        .prefix_with("MATERIALIZED")
    )
    denied = (
        select(
            d.claim_key,
            d.payer_key,
            func.min(d.payer_name).label("payer_name"),
            d.category,
            first.c.first_on,
            func.sum(d.amount).label("denied"),
            func.max(d.batch_id).label("batch_id"),
        )
        .join(first, and_(first.c.claim_key == d.claim_key, first.c.payer_key == d.payer_key))
        .where(d.paid_on == first.c.first_on, d.is_denial.is_(True), d.amount > 0)
        .group_by(d.claim_key, d.payer_key, d.category, first.c.first_on)
        .cte("first_denied")
    )
    ranked = select(
        denied,
        func.row_number()
        .over(
            partition_by=(denied.c.claim_key, denied.c.payer_key), order_by=(denied.c.denied.desc(), denied.c.category)
        )
        .label("rank"),
    ).cte("first_denied_ranked")
    r = ranked.c
    # The payer's positive payments per claim: the latest date, and the latest batch on the first
    # decision's date (joins and one aggregate, not a correlated subquery per denial).
    paid = (
        select(
            d.claim_key,
            d.payer_key,
            func.max(d.paid_on).label("last_paid_on"),
            func.max(case((d.paid_on == first.c.first_on, d.batch_id))).label("first_day_batch"),
        )
        .join(first, and_(first.c.claim_key == d.claim_key, first.c.payer_key == d.payer_key))
        .where(d.entry_type == "payment", d.amount > 0)
        .group_by(d.claim_key, d.payer_key)
        .cte("paid")
    )
    overturned = or_(paid.c.last_paid_on > r.first_on, paid.c.first_day_batch > r.batch_id)
    stmt = (
        select(func.min(r.payer_name), r.category, func.count(), func.sum(case((overturned, 1), else_=0)))
        .select_from(ranked)
        .outerjoin(paid, and_(paid.c.claim_key == r.claim_key, paid.c.payer_key == r.payer_key))
        .where(r.rank == 1)
        .group_by(r.payer_key, r.category)
    )
    out: dict[HistoryKey, tuple[int, int]] = {}
    for payer, category, n, k in db.execute(stmt).tuples():
        out[(str(payer), str(category or ""))] = (int(n), int(k or 0))
    return out


def history_prior(db: Session) -> HistoryPrior:
    """The seeds of the selected client's payer x category cells."""
    return HistoryPrior(overturn_history(db))
