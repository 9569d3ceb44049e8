"""SQL over the tenant-scoped marts for revenuePayerIntelligence.* and the figures computed on its results.

Both procedures read fct_claim_payers (claim x payer, the rows fct_payer_monthly aggregates), initially
denied claims only, through ONE expression of the amount at risk (`AT_RISK`), so the list, its total and
the trend add up to one another and the denied and recovered amounts equal payerIntelligence.scorecard's
over the same months (a test compares them).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import (
    MartPageInput,
    MonthRange,
    decode_offset,
    encode_offset,
    month_text,
    payer_filter,
)
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.revenue_payer_intelligence import risk
from api.intelligence.revenue_payer_intelligence.schemas import MonthAtRisk, PayerAtRisk, TotalAtRisk

MARTS = ("fct_claim_payers", "dim_payers")
TREND_MONTHS = 12

AT_RISK = "greatest(initial_denied_amount - recovered_amount, 0)"
PAYERS_SQL = f"""
    with denials as (
        select payer_key, count(*) as denied_claims,
               sum(case when overturned then 1 else 0 end) as overturned_claims,
               sum(initial_denied_amount) as denied_amount, sum(recovered_amount) as recovered_amount,
               sum({AT_RISK}) as at_risk_amount,
               sum(cast({AT_RISK} as double) * cast({AT_RISK} as double)) as at_risk_sum_squares
        from fct_claim_payers
        where initially_denied and adjudication_month is not null and {{where}}
        group by payer_key
    ),
    names as (select payer_key, any_value(payer_name) as payer_name from dim_payers group by payer_key)
    select denials.*, names.payer_name from denials left join names using (payer_key)
"""


def _exposure(row: dict[str, Any]) -> risk.Exposure:
    return risk.Exposure(
        int(row["denied_claims"]),
        int(row["overturned_claims"]),
        to_money(row["at_risk_amount"]),
        float(row["at_risk_sum_squares"] or 0.0),
    )


def _payer(row: dict[str, Any], found: risk.Recovery | None) -> PayerAtRisk:
    figures: dict[str, Any] = {} if found is None else {k: v for k, v in vars(found).items() if k != "variance"}
    return PayerAtRisk.model_validate({**row, **figures})


def at_risk(
    m: ScopedMarts, months: MonthRange, payer: str | None, page: MartPageInput
) -> tuple[list[PayerAtRisk], str | None, TotalAtRisk]:
    """A page of payers, most at risk first, and the total over every payer of the months."""
    where, params = months.month_params("adjudication_month")
    where = payer_filter(where, params, payer)
    # One aggregation serves the page and the total: a row per payer, bounded by the client's payers.
    every = m.rows(PAYERS_SQL.format(where=where) + " order by at_risk_amount desc, payer_key", params)
    offset = decode_offset(page.cursor)
    cursor = encode_offset(offset + page.limit) if len(every) > offset + page.limit else None
    recoveries = [risk.recovery(_exposure(r)) for r in every]
    found = [f for f in recoveries if f is not None]
    zero = Decimal("0.00")
    at_risk_total = sum((to_money(r["at_risk_amount"]) for r in every), zero)
    expected = sum((f.expected_recovery for f in found), zero)
    low, high = risk.interval(float(expected), sum(f.variance for f in found), float(at_risk_total))
    total = TotalAtRisk(
        payers=len(every),
        denied_amount=sum((to_money(r["denied_amount"]) for r in every), zero),
        recovered_amount=sum((to_money(r["recovered_amount"]) for r in every), zero),
        at_risk_amount=at_risk_total,
        expected_recovery=expected,
        recovery_low=low,
        recovery_high=high,
    )
    shown = zip(every[offset : offset + page.limit], recoveries[offset : offset + page.limit], strict=True)
    return [_payer(r, f) for r, f in shown], cursor, total


MONTHS_SQL = f"""
    select adjudication_month as month, count(*) as denied_claims,
           sum(initial_denied_amount) as denied_amount, sum(recovered_amount) as recovered_amount,
           sum({AT_RISK}) as at_risk_amount
    from fct_claim_payers
    where initially_denied and adjudication_month is not null and {{where}}
    group by adjudication_month order by adjudication_month
"""


def _months_between(first: date, last: date) -> list[date]:
    out, current = [], first
    while current <= last:
        out.append(current)
        current = date(current.year + current.month // 12, current.month % 12 + 1, 1)
    return out


def monthly(m: ScopedMarts, months: MonthRange, payer: str | None) -> list[MonthAtRisk]:
    """Every month of the range (default: the TREND_MONTHS up to the latest with a denial), 0 where none."""
    where, params = months.month_params("adjudication_month")
    where = payer_filter(where, params, payer)
    rows = {r["month"]: r for r in m.rows(MONTHS_SQL.format(where=where), params)}
    if not rows and not (months.from_month and months.to_month):
        return []
    last = params.get("to_month") or max(rows)
    first = params.get("from_month") or _back(last, TREND_MONTHS - 1)
    zero = Decimal("0.00")
    return [
        MonthAtRisk(
            month=month_text(month),
            denied_claims=int(rows[month]["denied_claims"]) if month in rows else 0,
            denied_amount=to_money(rows[month]["denied_amount"]) if month in rows else zero,
            recovered_amount=to_money(rows[month]["recovered_amount"]) if month in rows else zero,
            at_risk_amount=to_money(rows[month]["at_risk_amount"]) if month in rows else zero,
        )
        for month in _months_between(first, last)
    ]


def _back(month: date, count: int) -> date:
    index = month.year * 12 + month.month - 1 - count
    return date(index // 12, index % 12 + 1, 1)
