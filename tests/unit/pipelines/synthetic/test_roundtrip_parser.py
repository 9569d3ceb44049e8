"""Round trip: the project's X12 parser reads every generated file and its totals
equal the generator's ground truth to the cent."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import polars as pl

from pipelines.ingest import x12
from pipelines.synthetic.generator import REDELIVERY_SUFFIX


def _sum(frame: pl.DataFrame, column: str) -> Decimal:
    value = frame.get_column(column).sum() if frame.height else None
    return Decimal(str(value)) if value is not None else Decimal("0")


def test_parser_totals_equal_ground_truth(demo_corpus):
    out, truth, _ = demo_corpus
    billed = paid = charge = pr = plb = bpr = Decimal("0")
    cas: Counter = Counter()
    statuses: Counter = Counter()
    claims_837 = 0
    bad_checks: list[str] = []
    for path in sorted(p for p in out.glob("*.83[57]") if REDELIVERY_SUFFIX not in p.name):  # counted once
        result = x12.parse_x12(path.read_bytes(), source=path.name)
        if result.quality.height:
            failing = result.quality.filter(~pl.col("ok"))
            bad_checks += [f"{path.name}: {row['check']}" for row in failing.iter_rows(named=True)]
        if result.kind == "837":
            claims = result.tables["claims"]
            claims_837 += claims.height
            billed += _sum(claims, "total_charge")
            continue
        rc = result.tables["remittance_claims"]
        paid += _sum(rc, "paid_amount")
        charge += _sum(rc, "total_charge")
        pr += _sum(rc, "patient_responsibility")
        statuses.update(rc.get_column("claim_status_code").to_list())
        adj = result.tables["remittance_adjustments"]
        for row in adj.group_by("group_code").agg(pl.col("amount").sum()).iter_rows():
            cas[row[0]] += Decimal(str(row[1]))
        plb += _sum(result.tables["provider_adjustments"], "amount")
        bpr += _sum(result.tables["remittances"], "total_paid")
    x = truth["x12"]
    assert bad_checks == []
    assert claims_837 == truth["counts"]["claims"]
    assert billed == Decimal(truth["money"]["total_billed"])
    assert charge == Decimal(x["remit_total_charge"])
    assert paid == Decimal(x["remit_total_paid"])
    assert pr == Decimal(x["remit_total_patient_responsibility"])
    assert {g: str(v) for g, v in cas.items() if v or g in x["cas_by_group"]} == x["cas_by_group"]
    assert plb == Decimal(x["plb_total"])
    assert bpr == Decimal(x["bpr_total"])
    assert dict(statuses) == truth["counts"]["clp_by_status"]
    # CLP02=4: first adjudications that denied, and re-adjudications after a recoupment
    recouped = truth["situations"]["recoupments"]["claims"]
    assert statuses["4"] == truth["denials"]["fully_denied_claims"] + recouped
