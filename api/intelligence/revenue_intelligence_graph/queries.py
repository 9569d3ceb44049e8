"""SQL over the tenant-scoped marts for revenueIntelligenceGraph.graph: the denied money of each payer x
denial category x service cell.

The denials are each payer's INITIAL decision of a claim (fct_claim_payers: the payer's first non-reversal
CLP, by adjudication month, as revenuePayerIntelligence and payerIntelligence count them): its denial CAS
amounts (fct_claim_adjustments, `is_denial`, not reversals, paid on the payer's initial payment date), each
on its service line's CPT/HCPCS code (fct_service_lines), else its revenue code, else `(claim level)` for a
claim-level adjustment. What the payer's overturns recovered of the claim (fct_claim_payers.recovered_amount)
is shared among the claim's denied flows in proportion to their denied amounts (an allocation: the marts do
not say which line an overturn paid back).
"""

from __future__ import annotations

from decimal import Decimal

from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.intelligence.revenue_intelligence_graph import flows

MARTS = ("fct_claim_payers", "fct_claim_adjustments", "fct_service_lines")
#: at most this many (payer, category, service) cells are read; more is answered as `flowsTruncated`
MAX_FLOWS = 20_000
CLAIM_LEVEL = "(claim level)"

FLOWS_SQL = """
    with initial as (
        select client_id, claim_key, payer_key, initial_payment_date, recovered_amount
        from fct_claim_payers
        where initially_denied and adjudication_month is not null and {where}
    ),
    denied as (
        select a.client_id, a.claim_key, a.payer_key,
               coalesce(nullif(a.denial_category, ''), 'unclassified') as category,
               coalesce(nullif(s.procedure_code, ''), 'rev:' || nullif(s.revenue_code, ''), $claim_level) as service,
               a.amount, i.recovered_amount
        from fct_claim_adjustments as a
        inner join initial as i
            on i.client_id = a.client_id and i.claim_key = a.claim_key and i.payer_key = a.payer_key
            and i.initial_payment_date = a.payment_date
        left join fct_service_lines as s on s.service_line_key = a.service_line_key
        where a.is_denial and not a.is_reversal and a.amount > 0
    ),
    shared as (
        select *, sum(amount) over (partition by client_id, claim_key, payer_key) as claim_denied from denied
    )
    select payer_key as payer, category, service, sum(amount) as denied, count(*) as adjustments,
           sum(cast(amount * recovered_amount / claim_denied as decimal(18, 2))) as recovered
    from shared
    group by payer_key, category, service
    order by denied desc, payer, category, service
    limit $limit
"""


class FlowRow(MartRow):
    payer: str
    category: str
    service: str
    denied: Decimal
    adjustments: int
    recovered: Decimal | None


def denied_flows(m: ScopedMarts, months: MonthRange) -> tuple[list[flows.Flow], bool]:
    """The cells of the months (adjudication months, inclusive) and whether there were more than MAX_FLOWS."""
    where, params = months.month_params("adjudication_month")
    params |= {"claim_level": CLAIM_LEVEL, "limit": MAX_FLOWS + 1}
    found = m.rows_as(FlowRow, FLOWS_SQL.format(where=where), params)
    cells = [
        flows.Flow(r.payer, r.category, r.service, to_money(r.denied), to_money(r.recovered), r.adjustments)
        for r in found[:MAX_FLOWS]
    ]
    return cells, len(found) > MAX_FLOWS
