"""SQL over the tenant-scoped marts for payerIntelligence.*, and the rates computed on its results."""

from __future__ import annotations

from typing import Any

from api.infra.marts.inputs import MartPageInput, MonthRange, page_rows, payer_filter
from api.infra.marts.serving import money_ratio, rate, round_days
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.payer_intelligence.schemas import DenialReason, PayerScore, PayerTimeToPay

SCORE_MARTS = ("fct_payer_monthly", "dim_payers")
DENIAL_MARTS = ("fct_payer_denials_monthly", "fct_payer_monthly")
PAYER_CLAIM_MARTS = ("fct_claim_payers",)

# Per payer of each claim's COB chain (fct_payer_monthly counts claim x payer, int_claim_payer_adjudications):
# a Medigap secondary paying the coinsurance after Medicare is a payer of its own here, not folded into the
# primary (fct_claim_reconciliation's payer_key is the first payer only).
SCORE_SQL = """
    with claims as (
        select payer_key, sum(claims_adjudicated) as claims_adjudicated, sum(billed_amount) as billed_amount,
               sum(paid_amount) as paid_amount,
               sum(denied_claims) as denied_claims,
               sum(denied_amount) as denied_amount,
               sum(claims_adjudicated) - sum(denied_claims) as clean_claims,
               sum(total_days_to_pay) / nullif(sum(claims_with_days_to_pay), 0) as avg_days_to_pay,
               sum(overturned_claims) as overturned_claims,
               sum(recovered_amount) as recovered_amount
        from fct_payer_monthly
        where adjudication_month is not null and {where}
        group by payer_key
    ),
    names as (select payer_key, any_value(payer_name) as payer_name from dim_payers group by payer_key)
    select claims.*, names.payer_name from claims left join names using (payer_key)
"""


def score(row: dict[str, Any]) -> PayerScore:
    """A payer scorecard row with its rates computed from the counts."""
    n, denied = int(row["claims_adjudicated"]), int(row["denied_claims"])
    clean, overturned = int(row["clean_claims"]), int(row["overturned_claims"])
    return PayerScore.model_validate(
        {
            **row,
            "claims_adjudicated": n,
            "denied_claims": denied,
            "clean_claims": clean,
            "overturned_claims": overturned,
            "denial_rate": rate(denied, n),
            "denial_rate_dollars": money_ratio(row["denied_amount"], row["billed_amount"]),
            "first_pass_yield": rate(clean, n),
            "overturn_rate": rate(overturned, denied),
            "avg_days_to_pay": round_days(row["avg_days_to_pay"]),
        }
    )


def scorecard(m: ScopedMarts, months: MonthRange, page: MartPageInput) -> tuple[list[PayerScore], str | None]:
    """One page of payer scorecards, largest billed first."""
    where, params = months.month_params("adjudication_month")
    sql = SCORE_SQL.format(where=where) + " order by billed_amount desc, payer_key"
    rows, cursor = page_rows(m, sql, params, page)
    return [score(r) for r in rows], cursor


def compare(m: ScopedMarts, months: MonthRange, payers: list[str]) -> dict[str, PayerScore]:
    """The scorecards of `payers` (upper-case keys) that have claims in the months, by payer key."""
    where, params = months.month_params("adjudication_month")
    where += " and list_contains($payers, upper(payer_key))"
    params["payers"] = list(payers)
    return {r["payer_key"].upper(): score(r) for r in m.rows(SCORE_SQL.format(where=where), params)}


# Per payer that made the decision (claim x payer, issue 24): fct_payer_denials_monthly counts each payer's
# own initial denial of a claim, so a claim paid by its primary and denied by its secondary (X12 835 TR3
# CLP02 = 2 / 3) is the secondary's denial; the payer's volume is fct_payer_monthly's claim x payer count
# over the same months. The figures are the marts' (summed over the range), never recomputed here.
DENIAL_REASONS_SQL = """
    with volume as (
        select payer_sk, sum(claims_adjudicated) as n from fct_payer_monthly
        where adjudication_month is not null and {volume_where} group by payer_sk
    )
    select d.payer_key, d.denial_category, d.carc, sum(d.denied_claims) as denied_claims,
           sum(d.denied_amount) as denied_amount, sum(d.overturned_claims) as overturned_claims,
           sum(d.recovered_amount) as recovered_amount, any_value(volume.n) as payer_claims_adjudicated
    from fct_payer_denials_monthly d join volume using (payer_sk)
    where {where}
    group by d.payer_sk, d.payer_key, d.denial_category, d.carc
    order by denied_claims desc, denied_amount desc, 1, 2, 3"""


def denial_reasons(
    m: ScopedMarts, months: MonthRange, payer: str | None, page: MartPageInput
) -> tuple[list[DenialReason], str | None]:
    """One page of denials by payer (the payer that denied), category and CARC, with the denial and
    overturn rates."""
    where, params = months.month_params("adjudication_month")
    volume_where = where
    where = payer_filter(where, params, payer, column="d.payer_key")
    sql = DENIAL_REASONS_SQL.format(volume_where=volume_where, where=where)
    rows, cursor = page_rows(m, sql, params, page)
    reasons = [
        DenialReason.model_validate(
            {
                **r,
                "overturn_rate": rate(r["overturned_claims"], r["denied_claims"]),
                "denial_rate": rate(r["denied_claims"], r["payer_claims_adjudicated"]),
            }
        )
        for r in rows
    ]
    return reasons, cursor


def time_to_pay(m: ScopedMarts, months: MonthRange, payer: str | None) -> tuple[float | None, list[PayerTimeToPay]]:
    """(mean days to pay over every payer, each payer's distribution of days to pay, slowest first)."""
    where, params = months.month_params("adjudication_month")
    # per payer of the claim (fct_claim_payers): a COB secondary's days to pay are its own
    base = f"from fct_claim_payers where days_to_pay is not null and {where}"
    mean_all = round_days(m.one(f"select avg(days_to_pay) as d {base}", params)["d"])
    base = payer_filter(base, params, payer)
    rows = m.rows(
        f"""
        select payer_key, count(*) as paid_claims, avg(days_to_pay) as mean_days,
               quantile_cont(days_to_pay, 0.5) as median_days, quantile_cont(days_to_pay, 0.9) as p90_days,
               min(days_to_pay) as min_days, max(days_to_pay) as max_days
        {base} group by payer_key order by mean_days desc, payer_key""",
        params,
    )
    payers = [
        PayerTimeToPay.model_validate(
            {
                **r,
                "mean_days": round(r["mean_days"], 3),
                "median_days": float(r["median_days"]),
                "p90_days": round(float(r["p90_days"]), 3),
                "days_above_all_payers": round(r["mean_days"] - (mean_all or 0.0), 3),
            }
        )
        for r in rows
    ]
    return mean_all, payers
