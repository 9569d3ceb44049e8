"""A bigger corpus: still balanced, still consistent, and memory does not grow with size."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.scenarios import PRESETS

from .x12_checker import X12Totals, check_file


@pytest.mark.slow
def test_fifty_thousand_claims_balance_and_match_truth(tmp_path):
    spec = CorpusSpec(seed=99, claims=50_000, claims_per_file=10_000, scenarios=PRESETS["demo"])
    calls: list[int] = []
    generate_corpus(spec, tmp_path, progress=lambda done, total: calls.append(done))
    assert calls == [10_000, 20_000, 30_000, 40_000, 50_000]
    totals = X12Totals()
    for path in sorted(tmp_path.glob("*.83[57]")):
        check_file(path.read_text(), totals)
    truth = json.loads((tmp_path / "ground_truth.json").read_text())
    assert totals.claims_837 == 50_000
    assert totals.billed_837 == Decimal(truth["money"]["total_billed"])
    assert totals.clp04 == Decimal(truth["x12"]["remit_total_paid"])
    assert totals.bpr == Decimal(truth["x12"]["bpr_total"])
    assert len(set(totals.traces)) == len(totals.traces)
    assert abs(truth["denials"]["initial_denial_rate_by_volume"] - 0.11) < 0.02
