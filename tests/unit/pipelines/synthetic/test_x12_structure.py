"""The generated X12 is structurally valid and balances, checked by an independent checker."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.generator import REDELIVERY_SUFFIX

from .x12_checker import X12Totals, X12Violation, check_file


def _check_all(out) -> X12Totals:
    totals = X12Totals()
    # a re-delivered file repeats remittances the truth counts once (test_situations checks it is a copy)
    remits = [p for p in sorted(out.glob("remits_*.835")) if REDELIVERY_SUFFIX not in p.name]
    for path in sorted(out.glob("claims_*.837")) + remits:
        check_file(path.read_text(), totals)
    return totals


def test_every_file_is_valid_and_totals_equal_ground_truth(demo_corpus):
    out, truth, _ = demo_corpus
    totals = _check_all(out)
    x12 = truth["x12"]
    assert totals.claims_837 == truth["counts"]["claims"] == 3000
    assert totals.billed_837 == Decimal(x12["claims_total_charge"]) == Decimal(truth["money"]["total_billed"])
    assert totals.clp03 == Decimal(x12["remit_total_charge"])
    assert totals.clp04 == Decimal(x12["remit_total_paid"])
    assert totals.clp05 == Decimal(x12["remit_total_patient_responsibility"])
    assert {g: str(v) for g, v in totals.cas_by_group.items()} == x12["cas_by_group"]
    assert totals.plb == Decimal(x12["plb_total"])
    assert totals.bpr == Decimal(x12["bpr_total"])
    assert dict(totals.clp_by_status) == truth["counts"]["clp_by_status"]
    assert totals.transactions - sum(1 for _ in out.glob("claims_*.837")) >= truth["counts"]["remittances"]


def test_corpus_exercises_every_remittance_feature(demo_corpus):
    out, truth, _ = demo_corpus
    text = "".join(p.read_text() for p in out.glob("remits_*.835"))
    status = truth["counts"]["clp_by_status"]
    assert {"1", "2", "4", "22"} <= set(status)
    # every reversal is followed by a re-payment (overturn, correction) or a re-adjudication (recoupment)
    situations = truth["situations"]
    reversals = truth["overturned"]["claims"] + truth["underpaid"]["corrected_claims"]
    assert status["22"] == reversals + situations["recoupments"]["claims"] > 0
    for reason in ("L6", "WO", "FB"):
        assert f"*{reason}:" in text, reason
    assert "LQ*HE*" in text and "AMT*B6*" in text and "MOA***" in text
    assert any(len(seg.split("*")) > 5 for seg in text.split("~") if seg.strip().startswith("CAS"))  # multi-triplet
    assert "SVC*HC:99213:25*" in text or "SVC*HC:99214:25*" in text
    cas_groups = set(truth["x12"]["cas_by_group"])
    assert {"CO", "PR"} <= cas_groups


def test_837_has_both_claim_types_and_authorisations(demo_corpus):
    out, truth, _ = demo_corpus
    p_text = "".join(p.read_text() for p in out.glob("claims_*_837P.837"))
    i_text = "".join(p.read_text() for p in out.glob("claims_*_837I.837"))
    assert "005010X222A1" in p_text and "\nSV1*" in p_text and "\nSV2*" not in p_text
    assert "005010X223A2" in i_text and "\nSV2*" in i_text and "\nSV1*" not in i_text
    assert "\nREF*G1*" in p_text + i_text
    assert "\nPAT*19~" in p_text + i_text  # dependants get a patient loop
    assert p_text.count("\nCLM*") == truth["counts"]["claims_837p"]
    assert i_text.count("\nCLM*") == truth["counts"]["claims_837i"]


def test_checker_catches_an_unbalanced_claim(demo_corpus):
    """The checker is not vacuous: corrupt one paid amount and it must object."""
    out, _, _ = demo_corpus
    text = next(iter(sorted(out.glob("remits_*.835")))).read_text()
    start = text.index("\nCLP*")
    end = text.index("~", start)
    fields = text[start + 1 : end].split("*")
    fields[4] = str(Decimal(fields[4]) + Decimal("0.01"))
    broken = text[: start + 1] + "*".join(fields) + text[end:]
    with pytest.raises(X12Violation):
        check_file(broken, X12Totals())


def test_checker_catches_a_wrong_segment_count(demo_corpus):
    out, _, _ = demo_corpus
    text = next(iter(sorted(out.glob("claims_*.837")))).read_text()
    broken = text.replace("\nLX*1~\n", "\nLX*1~\nNTE*ADD*EXTRA~\n", 1)
    with pytest.raises(X12Violation):
        check_file(broken, X12Totals())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_small_corpora_balance_for_any_seed_and_shape(tmp_path, seed):
    spec = CorpusSpec(
        seed=seed,
        claims=400,
        claims_per_file=150,
        payers=2 + seed,
        facilities=1 + seed,
        denial_rate=0.3,
        institutional_share=0.25 * seed,
        plb_rate=0.5,
        overturn_rate=0.8,
    )
    generate_corpus(spec, tmp_path)
    totals = _check_all(tmp_path)
    assert totals.claims_837 == 400
    assert len(set(totals.traces)) == len(totals.traces)  # every check/EFT trace is unique
