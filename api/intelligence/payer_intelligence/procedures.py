"""payerIntelligence.*: denial and payment behaviour per payer (fct_claim_reconciliation,
fct_payer_denials_monthly, dim_payers). Months are adjudication months."""

from __future__ import annotations

from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.intelligence.payer_intelligence.queries import SCORE_SQL, score
from api.intelligence.payer_intelligence.schemas import (
    CompareIn,
    CompareOut,
    DenialReasonsIn,
    DenialReasonsOut,
    ScorecardIn,
    ScorecardOut,
    TimeToPayIn,
    TimeToPayOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MARTS = ("fct_claim_reconciliation", "dim_payers")


@rpc.query("payerIntelligence.scorecard")
def scorecard(ctx: Context, input: ScorecardIn) -> ScorecardOut:
    """Per payer: volume, billed and paid, initial denial rate (volume and dollars), first-pass
    yield, mean days to pay, overturn rate and recovered money; largest billed first, paginated."""
    where, params = input.month_params("adjudication_month")
    with open_marts(ctx, *_MARTS) as m:
        rows, cursor = page_rows(
            m, SCORE_SQL.format(where=where) + " order by billed_amount desc, payer_key", params, input
        )
        snap = snapshot_of(m)
    return ScorecardOut(snapshot=snap, items=[score(r) for r in rows], next_cursor=cursor)


@rpc.query("payerIntelligence.denialReasons")
def denial_reasons(ctx: Context, input: DenialReasonsIn) -> DenialReasonsOut:
    """Denials by payer, root-cause category and CARC over the range, with the denial rate against the
    payer's volume and the overturn rate of those denials; most frequent first, paginated."""
    where, params = input.month_params("adjudication_month")
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    sql = f"""
        with volume as (
            select payer_key, count(*) as n from fct_claim_reconciliation
            where adjudication_month is not null and {where} group by payer_key
        )
        select d.payer_key, coalesce(d.primary_denial_category, 'unknown') as denial_category,
               coalesce(d.primary_denial_carc, 'NONE') as carc, count(*) as denied_claims,
               sum(d.initial_denied_amount) as denied_amount,
               count(*) filter (where d.overturned) as overturned_claims,
               sum(d.recovered_amount) as recovered_amount, any_value(volume.n) as payer_claims_adjudicated
        from fct_claim_reconciliation d join volume using (payer_key)
        where d.initially_denied and {where}
        group by 1, 2, 3 order by denied_claims desc, denied_amount desc, 1, 2, 3"""
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        rows, cursor = page_rows(m, sql, params, input)
        snap = snapshot_of(m)
    items = [
        {
            **r,
            "overturn_rate": rate(r["overturned_claims"], r["denied_claims"]),
            "denial_rate": rate(r["denied_claims"], r["payer_claims_adjudicated"]),
        }
        for r in rows
    ]
    return DenialReasonsOut(snapshot=snap, items=items, next_cursor=cursor)


@rpc.query("payerIntelligence.timeToPay")
def time_to_pay(ctx: Context, input: TimeToPayIn) -> TimeToPayOut:
    """Days from the payer's receipt of a claim (or the statement end) to its first payment, per payer:
    mean, median, 90th percentile and range, slowest payer first, and how far each payer is from the
    mean over all payers."""
    where, params = input.month_params("adjudication_month")
    base = f"from fct_claim_reconciliation where days_to_pay is not null and {where}"
    with open_marts(ctx, "fct_claim_reconciliation") as m:
        overall = m.one(f"select avg(days_to_pay) as d {base}", params)["d"]
        payer_where = ""
        if input.payer:
            payer_where = " and upper(payer_key) = $payer"
            params["payer"] = input.payer
        rows = m.rows(
            f"""
            select payer_key, count(*) as paid_claims, avg(days_to_pay) as mean_days,
                   quantile_cont(days_to_pay, 0.5) as median_days, quantile_cont(days_to_pay, 0.9) as p90_days,
                   min(days_to_pay) as min_days, max(days_to_pay) as max_days
            {base}{payer_where} group by payer_key order by mean_days desc, payer_key""",
            params,
        )
        snap = snapshot_of(m)
    mean_all = None if overall is None else round(float(overall), 3)
    payers = [
        {
            **r,
            "mean_days": round(r["mean_days"], 3),
            "median_days": float(r["median_days"]),
            "p90_days": round(float(r["p90_days"]), 3),
            "days_above_all_payers": round(r["mean_days"] - (mean_all or 0.0), 3),
        }
        for r in rows
    ]
    return TimeToPayOut(snapshot=snap, all_payers_mean_days=mean_all, payers=payers)


@rpc.query("payerIntelligence.compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """Side-by-side scorecards of 2 to 10 payers over the same months (in the order requested);
    payers without claims in the range are listed in `missing`."""
    where, params = input.month_params("adjudication_month")
    where += " and list_contains($payers, upper(payer_key))"
    params["payers"] = list(input.payers)
    with open_marts(ctx, *_MARTS) as m:
        rows = {r["payer_key"].upper(): score(r) for r in m.rows(SCORE_SQL.format(where=where), params)}
        snap = snapshot_of(m)
    return CompareOut(
        snapshot=snap,
        payers=[rows[p] for p in input.payers if p in rows],
        missing=[p for p in input.payers if p not in rows],
    )
