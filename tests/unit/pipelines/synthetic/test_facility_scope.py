"""Facility-scoped interventions, the generator's service-line labels and the scenario truth the evidence
tests compare the product with: each checked against the written files by an independent count."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pipelines.synthetic import CarcSpike, CorpusSpec, Intervention, SpecError, check_spec, generate_corpus
from pipelines.synthetic.catalog import SERVICE_LINES, SERVICES
from pipelines.synthetic.generator import REDELIVERY_SUFFIX
from pipelines.synthetic.scenarios import EVIDENCE_CLAIMS, PRESETS, evidence_spec, parse_scenario

from .x12_checker import segments

# Written by hand from the public CARC list (X12): coverage terminated, patient not identified, incurred before
# coverage, send to the correct payer, ID/name mismatch, eligibility not met.
ELIGIBILITY_CARCS = frozenset({"27", "31", "26", "109", "140", "177"})


def _data_digest(out: Path) -> str:
    """SHA-256 over the names and bytes of the 837, 835 and CSV files (the ground truth is left out: it gains
    fields; the parquet is left out: its footer names the pyarrow version)."""
    h = hashlib.sha256()
    for p in sorted(out.iterdir()):
        if p.suffix in (".835", ".837", ".csv"):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_unscoped_interventions_keep_the_corpus_byte_for_byte(tmp_path):
    # Pinned from the generator before Intervention had a facility (commit aa8549b), same spec: the demo
    # scenarios hold two unscoped interventions, so facility=None must draw and write exactly as before.
    spec = CorpusSpec(seed=3, claims=400, claims_per_file=200, facilities=3, scenarios=PRESETS["demo"])
    generate_corpus(spec, tmp_path)
    assert _data_digest(tmp_path) == "4b459acf084ff47e5c6c13e12e9fe8abe71a62317db47d58d0517f0323b5b208"
    # ... and the spec in manifest.json and ground_truth.json is written as before (no "facility" key)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert all("facility" not in s for s in manifest["spec"]["scenarios"])
    assert Intervention("x", "coding", 2, 0.5) == Intervention("x", "coding", 2, 0.5, facility=None)


@pytest.mark.parametrize("facility", [0, 3, True])
def test_a_facility_outside_the_corpus_is_refused_naming_the_field(facility):
    spec = CorpusSpec(facilities=2, scenarios=(Intervention("x", "coding", 2, 0.5, facility=facility),))
    with pytest.raises(SpecError, match=r"scenarios\[0\] \(intervention\)\.facility"):
        check_spec(spec)


def test_the_scenario_parser_takes_a_facility():
    (iv,) = parse_scenario("intervention:facility=2,effect=0.5")
    assert (iv.facility, iv.effect, iv.category) == (2, 0.5, "eligibility")
    (iv,) = parse_scenario("intervention:facility=all")
    assert iv.facility is None
    with pytest.raises(SpecError, match="parameter facility"):
        parse_scenario("intervention:facility=two")


def test_every_chargemaster_item_has_a_hand_written_service_line():
    assert {s.line for s in SERVICES.values()} == set(SERVICE_LINES)
    # spot checks against the AMA CPT sections / NUBC revenue groups
    assert SERVICES["70553"].line == "radiology"  # 70010-79999
    assert SERVICES["29881"].line == "surgery"  # 10004-69990
    assert SERVICES["99285"].line == "evaluation_management"  # 99202-99499
    assert SERVICES["0120"].line == "room_and_board"  # revenue 012X
    assert SERVICES["0250"].line == "drugs"  # revenue 025X


@dataclass
class _Remits:
    """An independent reading of the written files: per claim, its facility NPI, payer name and month from
    the 835 (N1*PE, N1*PR, DTM*232), the CARCs of its CAS and its CLP02; from the 837 its procedures."""

    facility: dict[str, str] = field(default_factory=dict)
    payer: dict[str, str] = field(default_factory=dict)
    month: dict[str, str] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    carcs: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    claim_level_carcs: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    svc_carcs: defaultdict[str, list[tuple[str, set[str]]]] = field(default_factory=lambda: defaultdict(list))
    procedures: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    billing_npis: set[tuple[str, str]] = field(default_factory=set)


def _read(out: Path) -> _Remits:
    r = _Remits()
    for path in sorted(out.glob("*.835")):
        if REDELIVERY_SUFFIX in path.name:
            continue
        payer = npi = pcn = ""
        for seg in segments(path.read_text()):
            if seg[0] == "N1" and seg[1] == "PR":
                payer = seg[2]
            elif seg[0] == "N1" and seg[1] == "PE":
                npi = seg[4]
            elif seg[0] == "CLP":
                pcn = seg[1]
                assert pcn not in r.status, "situations and appeals are off: one CLP loop per claim"
                r.status[pcn], r.payer[pcn], r.facility[pcn] = seg[2], payer, npi
            elif seg[0] == "DTM" and seg[1] == "232":
                r.month[pcn] = f"{seg[2][:4]}-{seg[2][4:6]}"
            elif seg[0] == "SVC":
                r.svc_carcs[pcn].append((seg[1].split(":")[1], set()))
            elif seg[0] == "CAS":
                codes = {seg[i] for i in range(2, len(seg), 3) if seg[i]}
                r.carcs[pcn] |= codes
                if r.svc_carcs[pcn]:
                    r.svc_carcs[pcn][-1][1].update(codes)
                else:
                    r.claim_level_carcs[pcn] |= codes
    for path in sorted(out.glob("*.837")):
        pcn = ""
        for seg in segments(path.read_text()):
            if seg[0] == "NM1" and seg[1] == "85":
                r.billing_npis.add((seg[3], seg[9]))
            elif seg[0] == "CLM":
                pcn = seg[1]
            elif seg[0] == "SV1" or (seg[0] == "SV2" and seg[2]):
                composite = seg[1] if seg[0] == "SV1" else seg[2]
                r.procedures[pcn].append(composite.split(":")[1])
    return r


def _quiet(spec: CorpusSpec) -> CorpusSpec:
    """No situations and no appeals: one remittance per claim, so counting CLP loops counts claims."""
    from dataclasses import replace

    return replace(spec.without_situations(), overturn_rate=0.0)


def test_a_scoped_intervention_lowers_only_its_facility(tmp_path):
    # effect 1.0 from month 1 at facility 2: that facility can have no eligibility denial at all, the others keep
    # the base rate. Facility weights are 6:5:4 (simulator), so facilities 1 and 3 hold 10/15 of 3,000 claims =
    # 2,000 and expect 2,000 x 0.3 (denial rate) x 0.25 (eligibility share) = 150 eligibility denials (sd ~12).
    iv = Intervention("facility 2 front desk", "eligibility", from_month=1, effect=1.0, facility=2)
    spec = _quiet(CorpusSpec(seed=8, claims=3000, months=3, facilities=3, denial_rate=0.3, scenarios=(iv,)))
    generate_corpus(spec, tmp_path)
    truth = json.loads((tmp_path / "ground_truth.json").read_text())
    (entry,) = truth["scenarios"]
    assert entry["parameters"]["facility"] == 2
    assert (entry["category"], entry["true_effect"], entry["from_month_label"]) == ("eligibility", 1.0, "2026-01")
    assert entry["facility_name"] == "MAPLE GROVE MEDICAL CENTER"  # FACILITY_TOWNS[1] + FACILITY_KINDS[1]

    files = _read(tmp_path)
    assert (entry["facility_name"], entry["facility_npi"]) in files.billing_npis  # NM1*85 NM103 / NM109 of the 837
    treated = {pcn for pcn, npi in files.facility.items() if npi == entry["facility_npi"]}
    denied_elig = {pcn for pcn, codes in files.carcs.items() if codes & ELIGIBILITY_CARCS}

    months = ["2026-01", "2026-02", "2026-03"]
    for group, members in (("treated", treated), ("untreated", set(files.facility) - treated)):
        claims = Counter(files.month[p] for p in members)
        denials = Counter(files.month[p] for p in members & denied_elig)
        assert {m: entry[group][m]["claims"] for m in months} == {m: claims[m] for m in months}
        assert {m: entry[group][m]["category_denials"] for m in months} == {m: denials[m] for m in months}
        by_payer = entry[group + "_by_payer"]
        assert sum(v[m]["claims"] for v in by_payer.values() for m in months) == len(members)
        for name, per_month in by_payer.items():
            assert sum(v["category_denials"] for v in per_month.values()) == len(
                {p for p in members & denied_elig if files.payer[p] == name}
            )
    assert sum(entry["treated"][m]["category_denials"] for m in months) == 0
    assert 100 < sum(entry["untreated"][m]["category_denials"] for m in months) < 200
    assert sum(entry["treated"][m]["claims"] + entry["untreated"][m]["claims"] for m in months) == 3000


def test_spike_truth_has_its_labels_and_line_counts(tmp_path):
    # rate 1.0 from month 2: every Medicare claim with a 70553 line is denied CO-197 (the spike is drawn before the
    # base mix), on its first 70553 line when the claim has several lines, on the whole claim otherwise.
    spike = CarcSpike(payer="medicare", carc="197", cpt="70553", from_month=2, rate=1.0)
    spec = _quiet(CorpusSpec(seed=4, claims=4000, months=3, facilities=2, scenarios=(spike,)))
    generate_corpus(spec, tmp_path)
    (entry,) = json.loads((tmp_path / "ground_truth.json").read_text())["scenarios"]
    assert entry["service_line"] == "radiology"
    assert entry["payer_name"] == "FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99"  # N1*PR02 of the catalog payer
    assert entry["category"] == "authorization"  # CARC 197: precertification/authorization absent
    assert entry["from_month_label"] == "2026-02"

    files = _read(tmp_path)
    expected: dict[str, Counter[str]] = defaultdict(Counter)
    for pcn, procs in files.procedures.items():
        n = procs.count("70553")
        if not n or files.payer[pcn] != entry["payer_name"]:
            continue
        k = expected[files.month[pcn]]
        k["claims_with_service"] += 1
        k["lines_with_service"] += n
        if "197" in files.carcs[pcn] and files.status[pcn] in ("1", "2", "4"):
            k["denied_with_carc"] += 1
            if "197" in files.claim_level_carcs[pcn]:
                k["claim_level_denied_with_carc"] += 1
                k["lines_denied_with_carc"] += n  # a claim-level CAS denies every line
            else:
                k["lines_denied_with_carc"] += sum(
                    1 for code, codes in files.svc_carcs[pcn] if code == "70553" and "197" in codes
                )
    for month, k in entry["effect"].items():
        k = {key: v for key, v in k.items() if not key.endswith("by_spike")}
        assert k == {key: v for key, v in expected[month].items() if v}, month
    after = [entry["effect"][m] for m in ("2026-02", "2026-03")]
    assert all(k["denied_by_spike"] == k["claims_with_service"] > 0 for k in after)
    assert all(0 < k["lines_denied_by_spike"] <= k["lines_with_service"] for k in after)
    assert "denied_by_spike" not in entry["effect"]["2026-01"]


def test_the_evidence_world_is_valid_and_documented():
    spec = evidence_spec()
    check_spec(spec)
    assert (spec.claims, spec.months, spec.facilities) == (EVIDENCE_CLAIMS, 12, 3)
    spike, works, useless = spec.scenarios
    assert (spike.carc, spike.cpt, spike.from_month) == ("197", "70553", 4)
    assert (works.facility, works.effect, useless.facility, useless.effect) == (1, 0.7, 2, 0.0)
    assert works.category != useless.category
