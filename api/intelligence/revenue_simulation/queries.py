"""The history a simulation runs over: claim x payer rows of fct_claim_payers (the rows revenue at risk and
the payer scorecard read) in the adjudication months, with the denied money of the payer's initial decision
that matches a prevention target (fct_claim_adjustments' denials paid on that decision's date)."""

from __future__ import annotations

from typing import Any

from api.infra.marts.inputs import MonthRange, payer_filter
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.revenue_simulation import whatif

MARTS = ("fct_claim_payers", "fct_claim_adjustments")

ROWS_SQL = """
    with matched as (
        select claim_key, upper(payer_key) as payer_key, payment_date, sum(amount) as matched_denied
        from fct_claim_adjustments
        where is_denial and (denial_category = $category or carc = $carc)
        group by claim_key, upper(payer_key), payment_date
    )
    select upper(p.payer_key) as payer_key, p.paid_amount, p.initial_denied_amount, p.recovered_amount,
           p.overturned, p.initially_denied, p.primary_denial_category, p.initial_payment_date, p.recovery_date,
           coalesce(matched.matched_denied, 0) as matched_denied
    from fct_claim_payers as p
    left join matched
        on matched.claim_key = p.claim_key and matched.payer_key = upper(p.payer_key)
        and matched.payment_date = p.initial_payment_date
    where p.adjudication_month is not null and {where}
    order by p.claim_key, p.payer_key
    limit $limit
"""


def _row(r: dict[str, Any]) -> whatif.Row:
    denied = float(r["initial_denied_amount"] or 0) if r["initially_denied"] else 0.0
    return whatif.Row(
        payer_key=str(r["payer_key"]),
        paid=float(r["paid_amount"] or 0),
        denied=denied,
        recovered=float(r["recovered_amount"] or 0),
        overturned=bool(r["overturned"]),
        category=r["primary_denial_category"],
        matched=float(r["matched_denied"] or 0) if denied else 0.0,
        days_to_recovery=whatif.days_between(r["initial_payment_date"], r["recovery_date"]),
    )


def history(
    m: ScopedMarts, months: MonthRange, payer: str | None, *, category: str | None, carc: str | None, limit: int
) -> list[whatif.Row]:
    """At most `limit` claim x payer rows of the months (and payer), in claim order."""
    where, params = months.month_params("p.adjudication_month")
    where = payer_filter(where, params, payer, column="p.payer_key")
    params.update(category=category, carc=carc, limit=limit)
    return [_row(r) for r in m.rows(ROWS_SQL.format(where=where), params)]
