"""KPI reads over fct_kpis_monthly and fct_claim_reconciliation for analytics.*."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import MonthRange, month_label
from api.infra.marts.serving import money_ratio, rate, round_days, to_money
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.analytics.schemas import CLEAN_CLAIM_RATE_UNAVAILABLE, BreakdownRow, Kpis, TrendPoint

KPI_MARTS = ("fct_kpis_monthly", "fct_claim_reconciliation")
TREND_MARTS = ("fct_kpis_monthly",)
BREAKDOWN_MARTS = ("fct_claim_reconciliation",)

# Rate metrics: numerator and denominator expressions over fct_kpis_monthly (see _analytics.yml).
RATES = {
    "initial_denial_rate": ("initially_denied_claims", "claims_adjudicated"),
    "initial_denial_rate_dollars": ("initially_denied_charges", "billed_amount"),
    "first_pass_yield": ("clean_claims", "claims_adjudicated"),
    "final_denial_write_off_pct": ("final_denial_write_off_amount", "net_patient_revenue"),
    "overturn_rate": ("worked_overturned_claims", "initially_denied_claims"),
    "net_collection_rate": ("paid_amount", "billed_amount - contractual_amount - patient_responsibility"),
    "cost_to_collect": ("cost_to_collect_amount", "case when cost_to_collect_amount is not null then paid_amount end"),
    "aged_ar_over_90_pct": ("aged_ar_amount", "ar_amount"),
    "days_in_ar": ("net_ar_amount", "trailing_net_patient_revenue / trailing_days"),
    "days_in_dnfb": ("dnfb_amount", "trailing_discharged_charges / trailing_days"),
    "case_win_rate": ("cases_won + cases_partially_won", "cases_decided"),
}
# Breakdown dimensions: the fct_claim_reconciliation expression each one groups on.
DIMENSIONS = {
    "category": "primary_denial_category",
    "carc": "primary_denial_group_code || '-' || primary_denial_carc",
    "payer": "payer_key",
    "group_code": "primary_denial_group_code",
    "hard_or_soft": "primary_denial_hard_or_soft",
    "preventable": "cast(primary_denial_preventable as varchar)",
    "claim_type": "claim_type",
}


_SUMS = """
    select count(*) as months, max(data_as_of) as data_as_of,
           max(month) filter (where ar_amount is not null) as last_month,
           coalesce(sum(claims_adjudicated), 0) as claims_adjudicated,
           sum(billed_amount) as billed_amount, sum(paid_amount) as paid_amount,
           sum(patient_responsibility) as patient_responsibility, sum(net_patient_revenue) as net_patient_revenue,
           sum(contractual_amount) as contractual_amount,
           coalesce(sum(initially_denied_claims), 0) as initially_denied_claims,
           sum(initial_denied_amount) as initial_denied_amount, sum(initially_denied_charges) as initially_denied_charges,
           coalesce(sum(clean_claims), 0) as clean_claims,
           coalesce(sum(final_write_off_claims), 0) as final_write_off_claims,
           sum(final_denial_write_off_amount) as final_denial_write_off_amount,
           coalesce(sum(overturned_claims), 0) as overturned_claims,
           coalesce(sum(appeal_overturned_claims), 0) as appeal_overturned_claims,
           coalesce(sum(worked_overturned_claims), 0) as worked_overturned_claims,
           count(*) filter (where not is_mature) as immature_months,
           sum(recovered_amount) as recovered_amount, sum(cost_to_collect_amount) as cost_to_collect_amount,
           sum(paid_amount) filter (where cost_to_collect_amount is not null) as costed_paid_amount,
           coalesce(sum(days_in_month), 0) as days, sum(discharged_billed_charges) as discharged_billed_charges,
           coalesce(sum(cases_opened), 0) as cases_opened, coalesce(sum(cases_closed), 0) as cases_closed,
           coalesce(sum(cases_decided), 0) as cases_decided, coalesce(sum(cases_won), 0) as cases_won,
           coalesce(sum(cases_partially_won), 0) as cases_partially_won, coalesce(sum(cases_lost), 0) as cases_lost,
           coalesce(sum(cases_written_off), 0) as cases_written_off,
           sum(case_recovered_amount) as case_recovered_amount, sum(case_written_off_amount) as case_written_off_amount,
           sum(case_final_write_off_amount) as case_final_write_off_amount,
           {balances}
    from fct_kpis_monthly where {where}"""
# The balances at the end of the range: those of last_month (the latest month that has them; one row per
# tenant and month). Read in the same statement as the sums: each statement on a tenant view costs about a
# millisecond of DuckDB binding whatever it reads. arg_max_null keeps a null balance (DNFB without data).
BALANCES = ("ar_amount", "net_ar_amount", "aged_ar_amount", "dnfb_amount")
_BALANCES = ", ".join(
    f"arg_max_null({column}, month) filter (where ar_amount is not null) as {column}" for column in BALANCES
)


def kpis(m: ScopedMarts, months: MonthRange) -> tuple[int, date | None, Kpis]:
    """(months covered, the data horizon, the KPIs over them): cohort and case figures summed over the
    months, balances (A/R, DNFB) at the end of the range's last month that has them (a month after the
    data horizon, a row only for case activity, has none) over the range's average daily revenue. Days
    to pay average the claims of those months. A ratio with a zero denominator is None."""
    where, params = months.month_params("month")
    row = m.one(_SUMS.format(where=where, balances=_BALANCES), params)
    end = {column: row[column] for column in BALANCES}
    adj_where, _ = months.month_params("adjudication_month")
    days = m.one(
        f"""select avg(days_to_pay) as d from fct_claim_reconciliation
            where adjudication_month is not null and {adj_where}""",
        params,
    )
    n, denied = int(row["claims_adjudicated"]), int(row["initially_denied_claims"])
    revenue, paid = row["net_patient_revenue"] or 0, row["paid_amount"] or 0
    ar, dnfb, span = end.get("ar_amount"), end.get("dnfb_amount"), int(row["days"])
    patient = row["patient_responsibility"] or 0
    values = Kpis.model_validate(
        {
            **row,
            **end,
            "claims_adjudicated": n,
            "initially_denied_claims": denied,
            "immature_months": int(row["immature_months"] or 0),
            "initial_denial_rate": rate(denied, n),
            "initial_denial_rate_dollars": money_ratio(row["initially_denied_charges"], row["billed_amount"]),
            "first_pass_yield": rate(row["clean_claims"], n),
            "clean_claim_rate": None,
            "clean_claim_rate_unavailable": CLEAN_CLAIM_RATE_UNAVAILABLE,
            "final_denial_write_off_pct": money_ratio(row["final_denial_write_off_amount"], revenue),
            # credited to denial work only: a case worked by a person before the remittance that paid
            "overturn_rate": rate(row["worked_overturned_claims"], denied),
            # payer payments over what payers owed (patient payments are not received: HFMA MAP Key
            # adjusted collection rate with the patient's liability out of the denominator too)
            "net_collection_rate": money_ratio(
                paid, (row["billed_amount"] or 0) - (row["contractual_amount"] or 0) - patient
            ),
            # recorded costs over the cash of the months that have them (HFMA MAP Key "Cost to Collect")
            "cost_to_collect": money_ratio(row["cost_to_collect_amount"], row["costed_paid_amount"]),
            "avg_days_to_pay": round_days(days["d"]),
            "balances_month": month_label(row["last_month"]) if row["last_month"] is not None else None,
            "aged_ar_over_90_pct": money_ratio(end.get("aged_ar_amount"), ar),
            "days_in_ar": _days_of(end.get("net_ar_amount"), revenue, span),
            "days_in_dnfb": _days_of(dnfb, row["discharged_billed_charges"], span),
            "case_win_rate": rate(int(row["cases_won"]) + int(row["cases_partially_won"]), int(row["cases_decided"])),
        }
    )
    return int(row["months"]), row["data_as_of"], values


def _days_of(balance: Decimal | None, flow: Decimal | int | None, days: int) -> float | None:
    """balance / (flow / days): how many days of the average daily flow the balance holds (None when
    there is no balance, no flow or no day)."""
    if balance is None or not flow or not days:
        return None
    return round(float(balance) * days / float(flow), 6)


def trend(m: ScopedMarts, months: MonthRange, metric: str) -> list[TrendPoint]:
    """`metric` month by month; a rate carries its numerator and denominator."""
    where, params = months.month_params("month")
    if metric in RATES:
        num, den = RATES[metric]
        select = f"cast({num} as double) as numerator, cast({den} as double) as denominator"
    else:
        select = f"cast({metric} as double) as value"
    rows = m.rows(f"select month, is_mature, {select} from fct_kpis_monthly where {where} order by month", params)
    return [TrendPoint.model_validate(_point(r, is_rate=metric in RATES)) for r in rows]


def _point(row: dict[str, Any], *, is_rate: bool) -> dict[str, Any]:
    label = month_label(row["month"])
    if not is_rate:
        return {"month": label, "value": row["value"]}
    num, den = row["numerator"], row["denominator"]
    # A rate of nothing is unknown: null, never 0.0.
    value = None if num is None or not den else round(num / den, 6)
    return {"month": label, "value": value, "numerator": num, "denominator": den, "is_mature": row["is_mature"]}


def breakdown(m: ScopedMarts, months: MonthRange, by: str, limit: int) -> tuple[int, Decimal, list[BreakdownRow]]:
    """(initially denied claims, their denied amount, the largest groups by dimension `by`)."""
    where, params = months.month_params("adjudication_month")
    key = DIMENSIONS[by]
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
        group by 1 order by denied_claims desc, denied_amount desc, key limit {int(limit)}""",
        params,
    )
    n = int(total["n"])
    groups = [BreakdownRow.model_validate({**r, "share_of_denials": rate(r["denied_claims"], n)}) for r in rows]
    return n, to_money(total["amount"]), groups
