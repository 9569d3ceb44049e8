"""The CSV exports parse with Polars and their totals match the ground truth."""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal

import polars as pl

MONEY = re.compile(r"^\(?-?\$?[\d,]+\.\d{2}\)?$")


def parse_money(text: str) -> Decimal:
    """'$1,234.56' -> 1234.56; '($12.00)' -> -12.00."""
    assert MONEY.match(text), text
    negative = text.startswith(("(", "-"))
    value = Decimal(text.strip("()-").replace("$", "").replace(",", ""))
    return -value if negative else value


def _read(out, name: str) -> pl.DataFrame:
    return pl.read_csv(out / name, infer_schema=False)


def test_claims_export_matches_truth(demo_corpus):
    out, truth, _ = demo_corpus
    cols = truth["csv_columns"]["claims_export.csv"]
    frame = _read(out, "claims_export.csv")
    assert frame.columns == list(cols.values()) or set(frame.columns) == set(cols.values())
    assert frame.height == truth["counts"]["claims"]
    assert sum(parse_money(v) for v in frame[cols["billed"]]) == Decimal(truth["money"]["total_billed"])
    assert frame[cols["account"]].n_unique() == frame.height
    fmt = truth["csv_columns"]["date_format"]
    for value in frame[cols["service_from"]].head(50):
        datetime.strptime(value, fmt)
    statuses = frame[cols["status"]].value_counts()
    counts = dict(statuses.iter_rows())
    assert counts["Paid on Appeal"] == truth["overturned"]["claims"]
    # the billing system shows the current status: a recouped claim is denied again
    assert counts["Denied"] == truth["current"]["ended_denied_claims"]


def test_payments_export_matches_remittances(demo_corpus):
    out, truth, _ = demo_corpus
    cols = truth["csv_columns"]["payments_export.csv"]
    frame = _read(out, "payments_export.csv")
    assert frame.height == sum(truth["counts"]["clp_by_status"].values())
    paid = sum(parse_money(v) for v in frame[cols["paid"]])
    assert paid == Decimal(truth["x12"]["remit_total_paid"])
    adjustments = sum(parse_money(v) for v in frame[cols["adjustment"]])
    provider_side = sum(Decimal(v) for g, v in truth["x12"]["cas_by_group"].items() if g != "PR")
    assert adjustments == -provider_side
    assert any(v.startswith("(") for v in frame[cols["adjustment"]])
    for value in frame[cols["payment_date"]].head(50):
        datetime.strptime(value, "%m/%d/%Y")


def test_denials_worklist_matches_truth(demo_corpus):
    out, truth, _ = demo_corpus
    cols = truth["csv_columns"]["denials_worklist.csv"]
    frame = _read(out, "denials_worklist.csv")
    assert frame.height == truth["denials"]["initial_denied_claims"]
    assert sum(parse_money(v) for v in frame[cols["denied_amount"]]) == Decimal(truth["denials"]["denied_amount"])
    codes = dict(frame[cols["denial_code"]].value_counts().iter_rows())
    assert codes == {k: v["claims"] for k, v in truth["denials"]["by_carc"].items()}


def test_deposits_match_the_bank_side(demo_corpus):
    out, truth, _ = demo_corpus
    cols = truth["csv_columns"]["deposits.csv"]
    frame = _read(out, "deposits.csv")
    assert frame.height == truth["money"]["deposits"]
    assert sum(Decimal(v) for v in frame[cols["amount"]]) == Decimal(truth["money"]["deposits_total"])
    traces = "".join(p.read_text() for p in out.glob("remits_*.835"))
    for trace in frame[cols["trace_number"]].head(30):
        assert f"TRN*1*{trace}*" in traces


def test_header_dialect_depends_on_seed(tmp_path):
    from pipelines.synthetic import CorpusSpec, generate_corpus

    headers = set()
    for seed in (0, 1, 2):
        out = tmp_path / str(seed)
        generate_corpus(CorpusSpec(seed=seed, claims=20), out)
        headers.add((out / "claims_export.csv").read_text().splitlines()[0])
    assert len(headers) == 3
