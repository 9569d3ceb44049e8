"""A bigger corpus, over several files: still balanced and consistent with its ground truth.

Twelve thousand claims in five files check what size adds (file splitting, progress per file, unique
traces across files, the demo's denial rate within a tolerance: its standard error at this size is
0.003, the tolerance 0.02); the million-claim corpora are measured in bench/pipeline.py."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.scenarios import PRESETS

from .x12_checker import X12Totals, check_file


@pytest.mark.slow
def test_twelve_thousand_claims_in_five_files_balance_and_match_truth(tmp_path):
    spec = CorpusSpec(seed=99, claims=12_000, claims_per_file=2_400, scenarios=PRESETS["demo"])
    calls: list[int] = []
    generate_corpus(spec, tmp_path, progress=lambda done, total: calls.append(done))
    assert calls == [2_400, 4_800, 7_200, 9_600, 12_000]
    totals = X12Totals()
    for path in sorted(tmp_path.glob("*.83[57]")):
        check_file(path.read_text(), totals)
    truth = json.loads((tmp_path / "ground_truth.json").read_text())
    assert totals.claims_837 == 12_000
    assert totals.billed_837 == Decimal(truth["money"]["total_billed"])
    assert totals.clp04 == Decimal(truth["x12"]["remit_total_paid"])
    assert totals.bpr == Decimal(truth["x12"]["bpr_total"])
    assert len(set(totals.traces)) == len(totals.traces)
    assert abs(truth["denials"]["initial_denial_rate_by_volume"] - 0.11) < 0.02
