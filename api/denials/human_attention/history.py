"""The payer's remittance history of denials and overturns, read from the ledger in one aggregate query.

The same notion as the marts' `is_overturned` (`int_claim_payer_adjudications.sql`), on the posted
financial entries, per claim x payer (the payer matched trimmed and without case, as cases match it):

- a *decision* is one remittance of the claim by the payer (payment date, batch, trace), over its
  payments and CAS amounts; reversal entries (CLP02=22) decide nothing;
- a *denial* is a claim x payer whose first decision (the earliest payment date) denied money: a positive
  `is_denial` entry, or a positive amount of a CLP02=4 ("denied") claim. Its category is the category
  with the most denied money that day (ties: the first by name);
- it was *overturned* when a later decision of the same payer (a later payment date, or the same date in
  a later batch) denied nothing: paid, or moved to the patient's share (a reversal corrected to PR).

On the demo (`make up`, 1,500 claims) this gives 49 overturns of 149 denials, the marts' figure
(`fct_payer_monthly.overturned_claims` / `denied_claims`). One query per scoring batch (``fit_model``),
never one per case.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import CTE, String, and_, case, func, literal, or_, select, union_all
from sqlalchemy.orm import Session

from api.denials.human_attention.history_prior import HistoryKey, HistoryPrior
from api.money.ingestion import service as ingestion

#: Entries that are a payer's decision on a claim (not charges, deposits, provider-level adjustments,
#: nor reversals, which undo a decision without making one).
DECISION_TYPES = ("payment", "denial", "adjustment", "patient_responsibility", "recoupment")
DENIED_STATUS = "4"  # CLP02=4, X12 835 TR3: denied


def _decisions() -> CTE:
    return ingestion.decisions_cte(DECISION_TYPES, DENIED_STATUS)


def _first_denials(decisions: CTE, first: CTE) -> CTE:
    """Each denied first decision, by category, ranked by denied money (rank 1 is the denial's category)."""
    d = decisions.c
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
        .where(d.paid_on == first.c.first_on, d.denies == 1)
        .group_by(d.claim_key, d.payer_key, d.category, first.c.first_on)
        .cte("first_denied")
    )
    order = (denied.c.denied.desc(), denied.c.category)
    rank = func.row_number().over(partition_by=(denied.c.claim_key, denied.c.payer_key), order_by=order)
    return select(denied, rank.label("rank")).cte("first_denied_ranked").prefix_with("MATERIALIZED")


def _summaries(decisions: CTE, first: CTE) -> CTE:
    """Per claim x payer, from its decisions (one row per remittance): the latest batch that denied on
    the first date, the latest date of a decision that denied nothing, and the latest such batch on the
    first date (aggregates over one join, not a correlated subquery per denial)."""
    d = decisions.c
    events = (
        select(d.claim_key, d.payer_key, d.paid_on, d.batch_id, func.max(d.denies).label("denies"))
        .group_by(d.claim_key, d.payer_key, d.paid_on, d.batch_id, d.reference)
        .cte("decision_events")
    )
    e = events.c
    on_first = e.paid_on == first.c.first_on
    return (
        select(
            e.claim_key,
            e.payer_key,
            first.c.first_on,
            func.max(case((and_(on_first, e.denies == 1), e.batch_id))).label("denied_batch"),
            func.max(case((e.denies == 0, e.paid_on))).label("clean_on"),
            func.max(case((and_(on_first, e.denies == 0), e.batch_id))).label("clean_batch"),
        )
        .join(first, and_(first.c.claim_key == e.claim_key, first.c.payer_key == e.payer_key))
        .group_by(e.claim_key, e.payer_key, first.c.first_on)
        .cte("claim_payer_summaries")
        .prefix_with("MATERIALIZED")
    )


def _statement() -> Any:
    decisions = _decisions()
    d = decisions.c
    first = (
        select(d.claim_key, d.payer_key, func.min(d.paid_on).label("first_on"))
        .group_by(d.claim_key, d.payer_key)
        .cte("first_decision")
        .prefix_with("MATERIALIZED")
    )
    r = _first_denials(decisions, first).c
    summary = _summaries(decisions, first).c
    overturned = or_(summary.clean_on > summary.first_on, summary.clean_batch > summary.denied_batch)
    nothing = literal(None, String)
    # The denial's category and its overturn meet by grouping a UNION ALL, not by a join: SQLite would
    # join two CTEs by a nested loop (denials x claims).
    rows = union_all(
        select(
            r.claim_key, r.payer_key, r.payer_name, r.category, literal(1).label("denied"), literal(0).label("won")
        ).where(r.rank == 1),
        select(summary.claim_key, summary.payer_key, nothing, nothing, literal(0), case((overturned, 1), else_=0)),
    ).cte("denials_and_overturns")
    per_claim = (
        select(
            func.max(rows.c.payer_name).label("payer_name"),
            rows.c.payer_key,
            func.max(rows.c.category).label("category"),
            func.max(rows.c.denied).label("denied"),
            func.max(rows.c.won).label("won"),
        )
        .group_by(rows.c.claim_key, rows.c.payer_key)
        .cte("per_claim")
    )
    c = per_claim.c
    return (
        select(func.min(c.payer_name), c.category, func.count(), func.sum(c.won))
        .where(c.denied == 1)
        .group_by(c.payer_key, c.category)
    )


def overturn_history(db: Session) -> dict[HistoryKey, tuple[int, int]]:
    """(payer, category) -> (denials, overturned) over the selected client's ledger."""
    out: dict[HistoryKey, tuple[int, int]] = {}
    for payer, category, n, k in db.execute(_statement()).tuples():
        out[(str(payer), str(category or ""))] = (int(n), int(k or 0))
    return out


def history_prior(db: Session) -> HistoryPrior:
    """The seeds of the selected client's payer x category cells."""
    return HistoryPrior(overturn_history(db))
