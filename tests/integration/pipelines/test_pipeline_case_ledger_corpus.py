"""The case ledger guard on a generated corpus posted through the product's upload path (issue 24).

`fct_case_ledger_differences` and the asset check `case_ledger_agrees` are held to the hand files in
test_pipeline_case_ledger_guard.py; here they meet every situation the generator can produce, at rates
high enough that a few hundred claims hold several of each: re-delivered 835s (new envelope, new ISA13),
COB secondary and tertiary payers, reversals and corrections (partial overturns, corrected
underpayments), post-payment recoupments, PLB (WO/FB claim recoupments, L6 interest), zero-amount CAS,
unknown CARCs, multiple-procedure reductions, overpayments, predeterminations and DRG pricing, plus the
hospital's CSV exports (claims, payments, denial worklist, deposits).

Every file goes through `ingestion.uploadUniversal` -> `ingestion.confirmImportBatch` over the real wire
(tests/support/hand_world.py), so the case intake (a batch_posted listener) opens and updates the
cases; the pipeline then builds the marts and the guard compares them with the cases: no difference.

The generator is independent of the code under test (its own model of the payers): besides the guard's
verdict, each case is held to the generator's own per-claim truth (truth_claims.parquet), so a case and
the marts that agreed on a wrong figure would still fail here.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import create_engine, text

from pipelines.runner import run_pipeline
from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.generator import REDELIVERY_SUFFIX
from tests.integration.pipelines.conftest import measured_after_generated_history

pytestmark = pytest.mark.slow

CHECK = "marts/fct_case_ledger_differences:case_ledger_agrees"
#: Every situation of the generator on, at rates far above its defaults, so 240 claims hold several of each.
SPEC = CorpusSpec(
    seed=2424,
    claims=240,
    months=3,
    claims_per_file=60,
    denial_rate=0.3,
    overturn_rate=0.5,
    underpayment_rate=0.1,
    plb_rate=0.5,
    cob_rate=0.5,
    tertiary_rate=0.5,
    partial_overturn_rate=0.5,
    recoupment_rate=0.08,
    corrected_underpayment_rate=0.5,
    redelivery_rate=0.5,
    reduction_rate=0.2,
    overpayment_rate=0.05,
    zero_cas_rate=0.08,
    unknown_carc_rate=0.08,
    received_date_rate=0.3,
    missing_allowed_rate=0.1,
    predetermination_rate=0.2,
    drg_rate=0.5,
)
#: Claims first (the 837s), then the remittances in the order the payers sent them, then the hospital's exports.
ORDER = (".837", ".835", ".csv")


def _upload_order(corpus: Path) -> list[str]:
    files = [p for p in corpus.iterdir() if p.suffix in ORDER]
    return [p.name for p in sorted(files, key=lambda p: (ORDER.index(p.suffix), p.name))]


@pytest.fixture(scope="module")
def world(hand_world, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("guard_corpus")
    generate_corpus(SPEC, corpus)
    truth = json.loads((corpus / "ground_truth.json").read_text())
    batches = dict(
        zip(
            _upload_order(corpus),
            hand_world.post(*_upload_order(corpus), folder=corpus, procedure="ingestion.uploadUniversal"),
            strict=True,
        )
    )
    with measured_after_generated_history():
        summary = run_pipeline(hand_world.data_dir, hand_world.settings.database_url)
    return hand_world, truth, batches, summary, pl.read_parquet(corpus / "truth_claims.parquet")


def test_the_corpus_holds_every_situation(world):
    """The generator planted each situation (its ground truth says so): the guard below meets all of them."""
    _, truth, batches, _, _ = world
    planted = truth["situations"]["claims"]
    for situation in (
        "cob",
        "corrected_underpayment",
        "partial_overturn",
        "recoupment",
        "reduction",
        "overpayment",
        "zero_cas",
        "unknown_carc",
        "predetermination",
        "drg",
    ):
        assert planted.get(situation, 0) > 0, situation
    assert truth["situations"]["cob"]["tertiary_remittances"] > 0
    assert truth["counts"]["clp_by_status"].get("22", 0) > 0  # reversals
    assert set(truth["x12"]["plb_by_reason"]) >= {"WO", "FB", "L6"}
    # every re-delivered 835 reached the upload path and was recognised there: nothing posted twice
    copies = [name for name in batches if REDELIVERY_SUFFIX in name]
    assert copies and len(copies) == truth["situations"]["redeliveries"]["files"]
    assert {batches[name]["status"] for name in copies} == {"duplicate_remittance"}
    assert {b["status"] for name, b in batches.items() if name not in copies} == {"confirmed"}


def test_the_cases_agree_with_the_marts(world):
    hw, _, _, summary, _ = world
    assert summary.success, summary.errors
    client = int(hw.tenant.client_id)
    assert sum(len(v) for v in _cases(hw).values()) > 50  # a denial-heavy corpus: many cases compared, not none
    found = hw.marts(
        "select difference_kind, case_id, claim_key, ledger_amount, case_amount "
        "from fct_case_ledger_differences where client_id = ? order by difference_kind, claim_key",
        [client],
    )
    assert found == []
    assert summary.check_results[CHECK] is True


def _cases(hw) -> dict[str, list[tuple[str, str, Decimal, Decimal]]]:
    """claim key -> [(event kind, state, amount at stake, recovered)] of the tenant's cases."""
    engine = create_engine(hw.settings.database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "select claim_key, event_kind, state, amount_at_stake, recovered_amount from denial_cases "
                    "where client_id = :client order by claim_key, id"
                ),
                {"client": hw.tenant.client_id},
            ).all()
    finally:
        engine.dispose()
    out: dict[str, list[tuple[str, str, Decimal, Decimal]]] = {}
    for claim, kind, state, at_stake, recovered in rows:
        out.setdefault(str(claim), []).append((str(kind), str(state), Decimal(str(at_stake)), Decimal(str(recovered))))
    return out


def test_every_case_is_the_generators_own_truth(world):
    """The generator's per-claim truth, not the code under test, says which claims have a case and with
    which money: a provider denial at the payer's first decision (group CO/OA; a claim denied to the patient,
    group PR, is the patient's to pay: no case) is at stake for its denied amount and recovered by what
    the payer paid later; a paid claim recouped and re-adjudicated as denied on post-payment review is at
    stake for its whole charge, nothing recovered, still open. No other claim has a case."""
    hw, _, _, _, claims = world
    expected: dict[str, list[tuple[str, Decimal, Decimal]]] = {}
    for c in claims.iter_rows(named=True):
        if c["denied_amount"] and c["denied_amount"] > 0 and c["group_code"] != "PR":
            expected[c["claim_id"]] = [("denial", c["denied_amount"], c["recovered"])]
        elif "recoupment" in (c["situations"] or "") and c["current_status"] == "denied":
            expected[c["claim_id"]] = [("denial", c["billed"], Decimal("0.00"))]
    found = _cases(hw)
    assert {k: [(kind, at, rec) for kind, _, at, rec in v] for k, v in found.items()} == expected
    recouped = [k for k, c in zip(claims["claim_id"], claims["situations"], strict=True) if "recoupment" in (c or "")]
    assert recouped and all(found[k][0][1] == "open" for k in recouped)
