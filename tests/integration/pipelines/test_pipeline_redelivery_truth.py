"""Re-delivered remittances through the drop folder: the money is counted once.

Every 835 of this small corpus is delivered a second time in a new envelope (new ISA13, a day
later) as a separate file, the way a clearinghouse re-sends an ERA.  The ground truth counts each
remittance once (``x12.bpr_total``, ``x12.remit_total_paid``), the re-deliveries apart
(``situations.redeliveries``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from pipelines.runner import RunSummary, run_pipeline
from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.generator import REDELIVERY_SUFFIX
from pipelines.warehouse.snapshot import open_published
from tests.integration.pipelines.conftest import drop_corpus, make_operational_db

pytestmark = pytest.mark.slow


@dataclass
class RedeliveredWorld:
    corpus_dir: Path
    data_dir: Path
    truth: dict
    summary: RunSummary


@pytest.fixture(scope="module")
def redelivered(tmp_path_factory) -> RedeliveredWorld:
    corpus = tmp_path_factory.mktemp("redelivered_corpus")
    generate_corpus(
        CorpusSpec(seed=5, claims=80, months=2, claims_per_file=40, write_csv=False, redelivery_rate=1.0), corpus
    )
    data_dir = tmp_path_factory.mktemp("redelivered_data")
    url = make_operational_db(data_dir)
    drop_corpus(corpus, data_dir)
    summary = run_pipeline(data_dir, url)
    truth = json.loads((corpus / "ground_truth.json").read_text())
    return RedeliveredWorld(corpus, data_dir, truth, summary)


def test_every_835_is_in_the_drop_folder_twice(redelivered):
    """Truth key ``situations.redeliveries``: one copy per 835 file, all posted."""
    assert redelivered.summary.success, redelivered.summary.errors
    copies = list(redelivered.corpus_dir.glob(f"*{REDELIVERY_SUFFIX}.835"))
    originals = [p for p in redelivered.corpus_dir.glob("remits_*.835") if REDELIVERY_SUFFIX not in p.name]
    assert len(copies) == len(originals) == redelivered.truth["situations"]["redeliveries"]["files"] == 2


def test_a_redelivered_remittance_is_counted_once(redelivered):
    """Truth keys ``x12.bpr_total`` and ``x12.remit_total_paid`` (each remittance once)."""
    x12 = redelivered.truth["x12"]
    with open_published(redelivered.data_dir) as snap:
        checks = snap.connection.execute("select sum(check_amount) from fct_remittances").fetchone()[0]
        paid = snap.connection.execute("select sum(paid_amount) from fct_remittance_claims").fetchone()[0]
    assert checks == Decimal(x12["bpr_total"])
    assert paid == Decimal(x12["remit_total_paid"])
