"""Ground truth is internally consistent, realistic, and shows the planted scenarios."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from pipelines.synthetic.catalog import CATEGORY_SHARES


def _truth_rows(out) -> pl.DataFrame:
    return pl.read_parquet(out / "truth_claims.parquet")


def _money(frame: pl.DataFrame, column: str) -> Decimal:
    return Decimal(str(frame.get_column(column).sum()))


def test_denial_rate_is_near_the_requested_rate(plain_corpus):
    _, truth = plain_corpus
    rate = truth["denials"]["initial_denial_rate_by_volume"]
    # 5,000 claims at p=0.11: one standard deviation is ~0.0044
    assert abs(rate - 0.11) < 0.015, rate
    assert truth["denials"]["by_cause"] == {"base": truth["denials"]["initial_denied_claims"]}
    assert 0.03 < truth["denials"]["initial_denial_rate_by_dollars"] < 0.30


def test_category_ranking_follows_the_configured_mix(plain_corpus):
    _, truth = plain_corpus
    counts = {k: v["claims"] for k, v in truth["denials"]["by_category"].items()}
    ranked = sorted(counts, key=counts.get, reverse=True)
    assert ranked[0] == "eligibility"
    assert counts["eligibility"] > counts["missing_information"] > counts["medical_necessity"]
    assert counts["authorization"] > counts["coding"] > counts["duplicate"]
    assert set(counts) <= set(CATEGORY_SHARES)


def test_truth_rows_agree_with_the_summary(plain_corpus):
    out, truth = plain_corpus
    rows = _truth_rows(out)
    money, denials = truth["money"], truth["denials"]
    assert rows.height == truth["counts"]["claims"] == 5000
    assert rows.get_column("claim_id").n_unique() == rows.height
    assert _money(rows, "billed") == Decimal(money["total_billed"])
    assert _money(rows, "final_paid") == Decimal(money["total_paid"])
    assert _money(rows, "initial_paid") == Decimal(money["initial_paid"])
    assert _money(rows, "patient_responsibility") == Decimal(money["total_patient_responsibility"])
    assert _money(rows, "denied_amount") == Decimal(denials["denied_amount"])
    denied = rows.filter(pl.col("denial_category").is_not_null())
    assert denied.height == denials["initial_denied_claims"]
    by_cat = dict(denied.group_by("denial_category").len().iter_rows())
    assert by_cat == {k: v["claims"] for k, v in denials["by_category"].items()}
    assert rows.filter(pl.col("overturned")).height == truth["overturned"]["claims"]
    assert sum(p["claims"] for p in truth["per_payer"].values()) == 5000
    assert sum(m["denied_claims"] for m in truth["per_month"].values()) == denials["initial_denied_claims"]
    assert sum(Decimal(p["paid"]) for p in truth["per_payer"].values()) == Decimal(money["total_paid"])
    # remittance money = first adjudication + reversal (nets to zero for $0 denials) + re-payment
    assert Decimal(truth["x12"]["remit_total_paid"]) == Decimal(money["total_paid"])
    assert Decimal(truth["x12"]["bpr_total"]) == Decimal(money["total_paid"]) - Decimal(truth["x12"]["plb_total"])


def test_claims_follow_the_timeline(plain_corpus):
    out, _ = plain_corpus
    rows = _truth_rows(out)
    assert rows.filter(pl.col("service_date") >= pl.col("submit_date")).height == 0
    assert rows.filter(pl.col("submit_date") >= pl.col("remit_date")).height == 0
    assert rows.filter(pl.col("overturned") & (pl.col("overturn_date") <= pl.col("remit_date"))).height == 0
    months = rows.get_column("month").unique().sort().to_list()
    assert months == ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"]


def test_paid_never_exceeds_billed_and_underpayments_are_real(plain_corpus):
    out, truth = plain_corpus
    rows = _truth_rows(out)
    # only a planted payment above the charges (CO-94) or a DRG case rate above them pays more than billed
    above = rows.filter(pl.col("final_paid") > pl.col("billed"))
    assert above.filter(~pl.col("situations").str.contains("overpayment|drg")).height == 0
    under = rows.filter(pl.col("underpaid_amount") > 0)
    assert under.height == truth["underpaid"]["claims"] > 0
    assert _money(under, "underpaid_amount") == Decimal(truth["underpaid"]["shortfall"])
    assert under.filter(pl.col("initial_paid") >= pl.col("expected_paid")).height == 0


def test_planted_scenarios_are_visible(demo_corpus):
    out, truth, _ = demo_corpus
    rows = _truth_rows(out)
    spike, slow, under, works, null = truth["scenarios"]

    # CARC spike: nothing before the start month, a clear share of the service denied after
    assert spike["kind"] == "carc_spike"
    for label, effect in spike["effect"].items():
        if label < spike["from_month_label"]:
            assert effect.get("denied_by_spike", 0) == 0
    after = [e for label, e in spike["effect"].items() if label >= spike["from_month_label"]]
    eligible = sum(e.get("claims_with_service", 0) for e in after)
    by_spike = sum(e.get("denied_by_spike", 0) for e in after)
    assert eligible > 20 and 0.3 < by_spike / eligible < 0.7
    assert rows.filter(pl.col("cause") == "carc_spike").height == by_spike
    spiked = rows.filter(pl.col("cause") == "carc_spike")
    assert set(spiked.get_column("payer").to_list()) == {spike["parameters"]["payer"]}
    assert set(spiked.get_column("carc").to_list()) == {spike["parameters"]["carc"]}

    # slow payer: paid about extra_days later than everyone else
    gap = slow["effect"]["mean_days_to_pay"] - slow["effect"]["other_payers_mean_days_to_pay"]
    assert gap > slow["parameters"]["extra_days"] - 5

    # systematic underpayment: the payer's allowed / the contract's close to the planted percentage,
    # and the payment short by a different amount (the patient's share absorbs part of the cut)
    ratio = Decimal(under["effect"]["allowed"]) / Decimal(under["effect"]["allowed_expected"])
    assert abs(ratio * 100 - Decimal(str(under["parameters"]["pct_of_contract"]))) < 1
    assert Decimal(under["effect"]["shortfall"]) > 0
    assert under["effect"]["shortfall"] != under["effect"]["allowed_shortfall"]

    # the working intervention lowers its category's rate; the null one does not
    def before_after(scenario):
        eff = scenario["effect"]
        cut = scenario["from_month_label"]
        b = [v for k, v in eff.items() if k < cut]
        a = [v for k, v in eff.items() if k >= cut]
        rate = lambda xs: sum(x["category_denials"] for x in xs) / sum(x["claims"] for x in xs)  # noqa: E731
        return rate(b), rate(a)

    b, a = before_after(works)
    assert a < b * 0.6
    b, a = before_after(null)
    assert a > b * 0.5


def test_timely_filing_denials_were_filed_late(plain_corpus):
    from pipelines.synthetic.catalog import PAYERS, TIMELY_FILING_DAYS

    out, _ = plain_corpus
    rows = _truth_rows(out).with_columns((pl.col("submit_date") - pl.col("service_date")).dt.total_days().alias("lag"))
    limits = {p.key: TIMELY_FILING_DAYS[p.kind] for p in PAYERS}
    late = rows.filter(pl.col("denial_category") == "timely_filing")
    assert late.height > 0
    for payer, lag in late.select("payer", "lag").iter_rows():
        assert lag > limits[payer]
    on_time = rows.filter(pl.col("denial_category").is_null())
    assert on_time.get_column("lag").max() <= 12
