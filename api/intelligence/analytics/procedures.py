"""analytics.*: HFMA-style revenue-cycle KPIs from the published marts (fct_kpis_monthly,
fct_claim_reconciliation). Months are adjudication months (the month of a claim's first remittance)."""

from __future__ import annotations

from api.infra.marts.inputs import month_label
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.intelligence.analytics.schemas import BreakdownIn, BreakdownOut, KpisIn, KpisOut, TrendIn, TrendOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

_RATES = {
    "initial_denial_rate": ("initially_denied_claims", "claims_adjudicated"),
    "initial_denial_rate_dollars": ("initial_denied_amount", "billed_amount"),
    "clean_claim_rate": ("clean_claims", "claims_adjudicated"),
    "denial_write_off_pct": ("denial_write_off_amount", "paid_amount + patient_responsibility"),
    "overturn_rate": ("overturned_claims", "initially_denied_claims"),
}
_DIMENSIONS = {
    "category": "primary_denial_category",
    "carc": "primary_denial_group_code || '-' || primary_denial_carc",
    "payer": "payer_key",
    "group_code": "primary_denial_group_code",
    "hard_or_soft": "primary_denial_hard_or_soft",
    "preventable": "cast(primary_denial_preventable as varchar)",
    "claim_type": "claim_type",
}


@rpc.query("analytics.kpis")
def kpis(ctx: Context, input: KpisIn) -> KpisOut:
    """Revenue-cycle KPIs summed over a range of adjudication months: initial denial rate by volume
    and by dollars, clean claim rate, denial write-off % of net revenue, overturn rate, days to pay.
    Every rate comes with its numerator and denominator."""
    where, params = input.month_params("month")
    with open_marts(ctx, "fct_kpis_monthly", "fct_claim_reconciliation") as m:
        row = m.one(
            f"""
            select count(*) as months, coalesce(sum(claims_adjudicated), 0) as claims_adjudicated,
                   sum(billed_amount) as billed_amount, sum(paid_amount) as paid_amount,
                   sum(patient_responsibility) as patient_responsibility,
                   coalesce(sum(initially_denied_claims), 0) as initially_denied_claims,
                   sum(initial_denied_amount) as initial_denied_amount,
                   coalesce(sum(clean_claims), 0) as clean_claims,
                   sum(denial_write_off_amount) as denial_write_off_amount,
                   coalesce(sum(overturned_claims), 0) as overturned_claims,
                   sum(recovered_amount) as recovered_amount
            from fct_kpis_monthly where {where}""",
            params,
        )
        adj_where, _ = input.month_params("adjudication_month")
        days = m.one(
            f"""select avg(days_to_pay) as d from fct_claim_reconciliation
                         where adjudication_month is not null and {adj_where}""",
            params,
        )
        snap = snapshot_of(m)
    n = int(row["claims_adjudicated"])
    denied = int(row["initially_denied_claims"])
    billed = row["billed_amount"] or 0
    revenue = (row["paid_amount"] or 0) + (row["patient_responsibility"] or 0)
    values = {
        **row,
        "claims_adjudicated": n,
        "initially_denied_claims": denied,
        "clean_claims": int(row["clean_claims"]),
        "overturned_claims": int(row["overturned_claims"]),
        "initial_denial_rate": rate(denied, n),
        "initial_denial_rate_dollars": _ratio(row["initial_denied_amount"], billed),
        "clean_claim_rate": rate(int(row["clean_claims"]), n),
        "denial_write_off_pct": _ratio(row["denial_write_off_amount"], revenue),
        "overturn_rate": rate(int(row["overturned_claims"]), denied),
        "avg_days_to_pay": None if days["d"] is None else round(float(days["d"]), 3),
    }
    return KpisOut(
        snapshot=snap, from_month=input.from_month, to_month=input.to_month, months=int(row["months"]), kpis=values
    )


@rpc.query("analytics.trend")
def trend(ctx: Context, input: TrendIn) -> TrendOut:
    """One KPI month by month (fct_kpis_monthly); rates carry their numerator and denominator."""
    where, params = input.month_params("month")
    with open_marts(ctx, "fct_kpis_monthly") as m:
        if input.metric in _RATES:
            num, den = _RATES[input.metric]
            select = f"cast({num} as double) as numerator, cast({den} as double) as denominator"
        else:
            select = f"cast({input.metric} as double) as value"
        rows = m.rows(f"select month, {select} from fct_kpis_monthly where {where} order by month", params)
        snap = snapshot_of(m)
    points = []
    for r in rows:
        if input.metric in _RATES:
            value = round(r["numerator"] / r["denominator"], 6) if r["denominator"] else 0.0
            points.append(
                {
                    "month": month_label(r["month"]),
                    "value": value,
                    "numerator": r["numerator"],
                    "denominator": r["denominator"],
                }
            )
        else:
            points.append({"month": month_label(r["month"]), "value": r["value"]})
    return TrendOut(snapshot=snap, metric=input.metric, points=points)


@rpc.query("analytics.breakdown")
def breakdown(ctx: Context, input: BreakdownIn) -> BreakdownOut:
    """Initially denied claims broken down by root-cause category, CARC (group-code), payer, group
    code, hard/soft, preventability or claim type, largest first (claims, then dollars)."""
    where, params = input.month_params("adjudication_month")
    key = _DIMENSIONS[input.by]
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        total = m.one(
            f"""select count(*) as n, sum(initial_denied_amount) as amount from fct_claim_reconciliation
                          where initially_denied and {where}""",
            params,
        )
        rows = m.rows(
            f"""
            select coalesce({key}, 'unknown') as key, count(*) as denied_claims,
                   sum(initial_denied_amount) as denied_amount,
                   count(*) filter (where overturned) as overturned_claims,
                   sum(recovered_amount) as recovered_amount
            from fct_claim_reconciliation where initially_denied and {where}
            group by 1 order by denied_claims desc, denied_amount desc, key limit {int(input.limit)}""",
            params,
        )
        snap = snapshot_of(m)
    n = int(total["n"])
    return BreakdownOut(
        snapshot=snap,
        by=input.by,
        total_denied_claims=n,
        total_denied_amount=total["amount"],
        rows=[{**r, "share_of_denials": rate(r["denied_claims"], n)} for r in rows],
    )


def _ratio(numerator, denominator) -> float:
    if not denominator:
        return 0.0
    return round(float(numerator or 0) / float(denominator), 6)
