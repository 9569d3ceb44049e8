"""SQL over the tenant-scoped marts for payerIntelligence.*."""

from __future__ import annotations

from typing import Any

from api.infra.marts.serving import rate

SCORE_SQL = """
    with claims as (
        select payer_key, count(*) as claims_adjudicated, sum(billed_amount) as billed_amount,
               sum(paid_amount) as paid_amount,
               count(*) filter (where initially_denied) as denied_claims,
               sum(initial_denied_amount) as denied_amount,
               count(*) filter (where not initially_denied) as clean_claims,
               avg(days_to_pay) as avg_days_to_pay,
               count(*) filter (where overturned) as overturned_claims,
               sum(recovered_amount) as recovered_amount
        from fct_claim_reconciliation
        where adjudication_month is not null and {where}
        group by payer_key
    ),
    names as (select payer_key, any_value(payer_name) as payer_name from dim_payers group by payer_key)
    select claims.*, names.payer_name from claims left join names using (payer_key)
"""


def score(row: dict[str, Any]) -> dict[str, Any]:
    """A payer scorecard row with its rates computed from the counts."""
    n, denied = int(row["claims_adjudicated"]), int(row["denied_claims"])
    billed = float(row["billed_amount"] or 0)
    return {
        **row,
        "claims_adjudicated": n,
        "denied_claims": denied,
        "clean_claims": int(row["clean_claims"]),
        "overturned_claims": int(row["overturned_claims"]),
        "denial_rate": rate(denied, n),
        "denial_rate_dollars": round(float(row["denied_amount"] or 0) / billed, 6) if billed else 0.0,
        "first_pass_yield": rate(int(row["clean_claims"]), n),
        "overturn_rate": rate(int(row["overturned_claims"]), denied),
        "avg_days_to_pay": None if row["avg_days_to_pay"] is None else round(float(row["avg_days_to_pay"]), 3),
    }
