"""Every planted situation is in the files the way the ground truth says it happened.

The files are read here with a few lines of segment splitting (neither the generator's code nor the
project's parser), and each claim's history in the 835s is checked against the truth's per-claim
model: payer chain, current status, increment recovered, patient balance, underpayment now.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.generator import REDELIVERY_SUFFIX

RATES = {
    "cob_rate": 0.6,
    "tertiary_rate": 0.5,
    "partial_overturn_rate": 0.6,
    "recoupment_rate": 0.1,
    "corrected_underpayment_rate": 0.5,
    "redelivery_rate": 0.5,
    "reduction_rate": 0.5,
    "overpayment_rate": 0.05,
    "zero_cas_rate": 0.05,
    "unknown_carc_rate": 0.05,
    "received_date_rate": 0.3,
    "missing_allowed_rate": 0.05,
    "predetermination_rate": 0.3,
    "drg_rate": 0.5,
}


@dataclass
class Clp:
    """One CLP loop as read from an 835: the payer of its transaction and its segments."""

    payer: str
    status: str
    charge: Decimal
    paid: Decimal
    pr: Decimal
    fields: list[str]
    segments: list[list[str]] = field(default_factory=list)


def read_835(path: Path) -> tuple[str, list[Clp]]:
    """(ISA13, CLP loops in file order) of one 835."""
    text = path.read_text()
    segs = [s.strip().split("*") for s in text.split("~") if s.strip()]
    payer = ""
    out: list[Clp] = []
    current: Clp | None = None
    for seg in segs:
        if seg[0] == "N1" and seg[1] == "PR":
            payer = seg[2]
        elif seg[0] == "CLP":
            current = Clp(payer, seg[2], Decimal(seg[3]), Decimal(seg[4]), Decimal(seg[5]), seg)
            out.append(current)
        elif seg[0] in ("SE", "PLB", "LX"):
            current = None
        elif current is not None:
            current.segments.append(seg)
    return segs[0][13], out


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    out = tmp_path_factory.mktemp("situations")
    generate_corpus(CorpusSpec(seed=31, claims=2500, claims_per_file=500, **RATES), out)
    truth = json.loads((out / "ground_truth.json").read_text())
    rows = {r["claim_id"]: r for r in pl.read_parquet(out / "truth_claims.parquet").iter_rows(named=True)}
    # each claim's CLP loops in payment order (a claim's remittances are all in its batch's file, by day);
    # predeterminations (CLP02=25) apart: they precede the claim and are no adjudication of it
    history: dict[str, list[Clp]] = defaultdict(list)
    for path in sorted(out.glob("remits_*.835")):
        if REDELIVERY_SUFFIX not in path.name:
            for clp in read_835(path)[1]:
                history[clp.fields[1] + ("/25" if clp.status == "25" else "")].append(clp)
    return out, truth, rows, history


def _with(rows: dict, situation: str) -> list[dict]:
    return [r for r in rows.values() if situation in (r["situations"] or "").split(",")]


def test_every_situation_is_planted_and_counted(world):
    _, truth, rows, _ = world
    counted = truth["situations"]["claims"]
    expected = {
        "cob",
        "partial_overturn",
        "recoupment",
        "corrected_underpayment",
        "reduction",
        "overpayment",
        "zero_cas",
        "unknown_carc",
        "received_date",
        "missing_allowed",
        "predetermination",
        "drg",
    }
    assert set(counted) == expected
    for name in expected:
        assert counted[name] == len(_with(rows, name)) > 0, name
    assert truth["situations"]["redeliveries"]["files"] > 0


def test_cob_chain_primary_secondary_tertiary(world):
    _, truth, rows, history = world
    cob = _with(rows, "cob")
    tertiary = 0
    names = {k: v["name"] for k, v in truth["per_payer"].items()}
    for r in cob:
        clps = history[r["claim_id"]]
        chain = r["payer_chain"].split(">")
        assert chain[0] == "medicare" and len(set(chain)) == len(chain) >= 2
        assert [c.payer for c in clps] == [names[k] for k in chain]
        assert [c.status for c in clps] == ["19", "2", "3"][: len(chain)]
        primary = clps[0]
        assert ["MOA", "", "", "MA18"] in primary.segments  # crossover remark
        assert any(s[0] == "CAS" and s[1] == "PR" for s in primary.segments)  # deductible / coinsurance
        # the secondary pays what the primary left to the patient, less its own patient share
        assert clps[1].paid + clps[1].pr == primary.pr
        if len(chain) == 3:
            tertiary += 1
            assert clps[2].paid == clps[1].pr and r["patient_balance"] == 0
        else:
            assert r["patient_balance"] == clps[1].pr
        assert r["final_paid"] == sum(c.paid for c in clps)
        assert r["current_status"] == "paid" and not r["ended_denied"] and r["recovered"] == 0
    assert tertiary == truth["situations"]["cob"]["tertiary_remittances"] > 0
    assert len(cob) == truth["situations"]["cob"]["secondary_remittances"]


def test_partial_denial_overturn_recovers_the_increment(world):
    _, _, rows, history = world
    for r in _with(rows, "partial_overturn"):
        first, reversal, corrected = history[r["claim_id"]]
        assert (first.status, reversal.status, corrected.status) == ("1", "22", "1")
        assert first.paid > 0 and reversal.paid == -first.paid and corrected.paid > first.paid
        assert r["initial_status"] == "partially_denied" and r["overturned"]
        assert r["recovered"] == corrected.paid - first.paid  # not the gross 2nd payment
        assert r["final_paid"] == corrected.paid and r["current_status"] == "paid"
        assert r["patient_balance"] == corrected.pr


def test_recoupment_ends_denied_and_open(world):
    _, truth, rows, history = world
    recouped = _with(rows, "recoupment")
    for r in recouped:
        first, reversal, again = history[r["claim_id"]]
        assert (first.status in ("1", "2"), reversal.status, again.status) == (True, "22", "4")
        assert first.paid > 0 and reversal.paid == -first.paid and again.paid == 0
        assert r["initial_status"] == "paid" and r["current_status"] == "denied" and r["ended_denied"]
        assert r["final_paid"] == 0 and r["patient_balance"] == 0 and r["denial_category"] is None
    assert Decimal(truth["situations"]["recoupments"]["recouped"]) == sum(
        history[r["claim_id"]][0].paid for r in recouped
    )


def test_corrected_underpayment_is_not_underpaid_any_more(world):
    _, truth, rows, history = world
    corrected = _with(rows, "corrected_underpayment")
    for r in corrected:
        first, reversal, again = history[r["claim_id"]]
        assert (first.status in ("1", "2"), reversal.status, again.status) == (True, "22", "1")
        assert again.paid == r["expected_paid"] > first.paid == r["initial_paid"]
        assert r["underpaid_amount"] > 0 and r["current_underpaid"] == 0 and r["current_status"] == "paid"
    still = [r for r in rows.values() if r["current_underpaid"]]
    assert truth["underpaid"]["current_claims"] == len(still)
    assert Decimal(truth["underpaid"]["current_shortfall"]) == sum(r["current_underpaid"] for r in still)
    assert truth["underpaid"]["corrected_claims"] == len(corrected)


def test_a_redelivered_file_repeats_the_remittances_in_a_new_envelope(world):
    out, truth, _, _ = world
    copies = sorted(out.glob(f"remits_*{REDELIVERY_SUFFIX}.835"))
    assert len(copies) == truth["situations"]["redeliveries"]["files"] == truth["counts"]["files"]["835_redelivered"]
    remittances = 0
    paid = Decimal(0)
    for copy in copies:
        original = copy.with_name(copy.name.replace(REDELIVERY_SUFFIX, ""))
        a, b = original.read_text().split("~\n"), copy.read_text().split("~\n")
        assert a[0][:90] != b[0][:90] and a[0].split("*")[13] != b[0].split("*")[13]  # new date/control
        assert a[2:-3] == b[2:-3]  # every ST..SE identical
        remittances += sum(1 for s in b if s.startswith("ST*"))
        paid += sum(Decimal(s.split("*")[2]) for s in b if s.startswith("BPR*"))
    assert remittances == truth["situations"]["redeliveries"]["remittances"]
    assert paid == Decimal(truth["situations"]["redeliveries"]["paid"])


def test_line_situations_are_written(world):
    _, _, rows, history = world

    def cas(r):
        """(group, CARC, amount) of every CAS triplet of the claim's first remittance."""
        segments = [s for s in history[r["claim_id"]][0].segments if s[0] == "CAS"]
        return [(s[1], s[i], Decimal(s[i + 1])) for s in segments for i in range(2, len(s) - 1, 3) if s[i]]

    for r in _with(rows, "zero_cas"):
        assert ("CO", "97", Decimal("0.00")) in cas(r)
        assert r["initial_status"] == "paid"  # a zero adjustment is no denial
    for r in _with(rows, "unknown_carc"):
        assert any(g == "OA" and k in ("Z91", "Z92", "Q77") and a > 0 for g, k, a in cas(r))
    for r in _with(rows, "overpayment"):
        assert any((g, k) == ("CO", "94") and a < 0 for g, k, a in cas(r))
        assert r["initial_paid"] > r["expected_paid"] and r["underpaid_amount"] == 0
    for r in _with(rows, "reduction"):
        assert any((g, k) == ("CO", "59") and a > 0 for g, k, a in cas(r))
        # the contract knows the multiple-procedure rule: no underpayment
        assert r["underpaid_amount"] == 0 and r["initial_paid"] >= r["expected_paid"]


def test_received_dates_missing_allowed_predeterminations_and_drg(world):
    out, truth, rows, history = world
    for r in rows.values():
        first = history[r["claim_id"]][0]
        dtm050 = [s for s in first.segments if s[:2] == ["DTM", "050"]]
        if r["received_date"] is None:
            assert dtm050 == []
        else:
            assert dtm050 == [["DTM", "050", r["received_date"].strftime("%Y%m%d")]]
        has_lines = any(s[0] == "SVC" for s in first.segments)
        if not r["allowed_reported"]:
            assert not any(s[:2] == ["AMT", "B6"] for s in first.segments)
        elif r["current_status"] == "paid" and has_lines and r["initial_status"] == "paid":
            assert any(s[:2] == ["AMT", "B6"] for s in first.segments)
    pre = _with(rows, "predetermination")
    for r in pre:
        (clp,) = history[r["claim_id"] + "/25"]
        assert clp.paid == 0 and r["initial_status"] == "paid"
        assert [s[1:4] for s in clp.segments if s[0] == "CAS"] == [["CO", "101", str(clp.charge)]]
    assert truth["counts"]["clp_by_status"]["25"] == len(pre)
    i_text = "".join(p.read_text() for p in out.glob("claims_*_837I.837"))
    for r in _with(rows, "drg"):
        first = history[r["claim_id"]][0]
        assert first.fields[11] == r["drg"] and first.fields[12]  # CLP11 DRG, CLP12 weight
        assert not any(s[0] == "SVC" for s in first.segments)  # priced as a case, not by line
        assert f"CLM*{r['claim_id']}*" in i_text
    assert i_text.count("HI*DR:") == len(_with(rows, "drg"))


def test_allowed_amount_and_underpayment_are_separate_facts(world):
    """AMT*B6 is the payer's allowed from the generator's contract model: a pricing error shows in
    AMT*B6 but the patient share absorbs part of it, and an unexplained discount (CO-131) leaves
    AMT*B6 at the contract price although the payment is short."""
    _, truth, rows, _ = world
    allowed_short = Decimal(truth["underpaid"]["allowed_shortfall"])
    assert allowed_short > 0
    assert allowed_short != Decimal(truth["underpaid"]["current_shortfall"])
    assert sum(r["allowed_shortfall"] for r in rows.values()) == allowed_short


def test_without_situations_the_corpus_has_none(tmp_path):
    spec = CorpusSpec(seed=31, claims=600, claims_per_file=300).without_situations()
    generate_corpus(spec, tmp_path)
    truth = json.loads((tmp_path / "ground_truth.json").read_text())
    assert truth["situations"]["claims"] == {}
    assert set(truth["counts"]["clp_by_status"]) <= {"1", "2", "4", "22"}
    assert not list(tmp_path.glob(f"*{REDELIVERY_SUFFIX}*"))
    text = "".join(p.read_text() for p in tmp_path.glob("remits_*.835"))
    assert "DTM*050*" not in text and "CAS*CO*94*" not in text and "MOA***MA18" not in text
