"""The vectorised 837 extractor gives byte-for-byte the tables and errors of the per-segment one it replaced.

The former implementation lives on in ``legacy_837.py`` as the oracle; it is
run over the same tokenised segments and envelopes the parser feeds the new one.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from pipelines.ingest.x12 import X12ParseError, parse_x12, parse_x12_file
from pipelines.ingest.x12.delimiters import find_isa
from pipelines.ingest.x12.envelope import ENVELOPE_IDS, EnvelopeValidator
from pipelines.ingest.x12.schemas import TABLES_837, conform
from pipelines.ingest.x12.segments import decode, tokenise, with_elements
from pipelines.synthetic import CorpusSpec, generate_corpus
from tests.support.paths import X12_FIXTURES
from tests.unit.pipelines.ingest.x12 import legacy_837
from tests.unit.pipelines.ingest.x12.test_x12_837 import ISA, _837i

FIXTURES = X12_FIXTURES


def oracle(data: bytes, source: str = "<input>") -> dict[str, pl.DataFrame]:
    """The legacy extractor over the whole interchange as one chunk."""
    start, delims = find_isa(data, source)
    seg = tokenise(decode(data[start:]), delims, seg_offset=0, source=source)
    validator = EnvelopeValidator(source=source, strict=False)
    env = with_elements(seg.filter(pl.col("sid").is_in(ENVELOPE_IDS)), delims)
    for seg_no, sid, el in zip(env["seg_no"].to_list(), env["sid"].to_list(), env["el"].to_list(), strict=False):
        validator.feed(seg_no, sid, el)
    tables = legacy_837.extract_837(
        with_elements(seg, delims),
        delims,
        validator.transactions,
        transaction_offset=0,
        claim_offset=0,
        source=source,
    )
    return {name: conform(frame, TABLES_837[name]) for name, frame in tables.items()}


# Columns added after the oracle was frozen; each has its own hand-written test
# (submission_date: test_837_submission_date.py).
NEWER_THAN_ORACLE = ("submission_date",)


def assert_same_tables(new: dict[str, pl.DataFrame], old: dict[str, pl.DataFrame]) -> None:
    assert set(new) == set(old) == set(TABLES_837)
    new = {name: frame.drop(NEWER_THAN_ORACLE, strict=False) for name, frame in new.items()}
    old = {name: frame.drop(NEWER_THAN_ORACLE, strict=False) for name, frame in old.items()}
    for name in TABLES_837:
        assert new[name].schema == old[name].schema, name
        assert_frame_equal(new[name], old[name], check_exact=True)
        assert new[name].equals(old[name]), name  # nulls included, value for value


def assert_same_outcome(data: bytes) -> None:
    """Both extractors return equal tables, or both raise the same error at the same segment."""
    try:
        expected = oracle(data, "in.837")
    except X12ParseError as exc:
        with pytest.raises(X12ParseError) as err:
            parse_x12(data, source="in.837", strict_envelopes=False)
        assert (err.value.segment_number, err.value.segment_id, str(err.value)) == (
            exc.segment_number,
            exc.segment_id,
            str(exc),
        )
        return
    assert_same_tables(parse_x12(data, source="in.837", strict_envelopes=False).tables, expected)


def test_lfh_837p_demo_fixture_matches_the_oracle() -> None:
    data = (FIXTURES / "lfh_5010_837p_demo.837").read_bytes()
    tables = parse_x12(data).tables
    assert tables["claims"].height > 0 and tables["claim_lines"].height == 4
    assert_same_tables(tables, oracle(data))


def test_hand_built_837i_matches_the_oracle() -> None:
    data = _837i().encode()
    tables = parse_x12(data).tables
    assert tables["claims"]["claim_type"].to_list() == ["837I", "837I"]
    assert_same_tables(tables, oracle(data))


@pytest.mark.parametrize("seed", [3, 71, 2026])
def test_generated_corpora_match_the_oracle_across_chunks(tmp_path, seed: int) -> None:
    generate_corpus(CorpusSpec(seed=seed, claims=160, months=2, claims_per_file=80, write_csv=False), tmp_path)
    files = sorted(tmp_path.glob("claims_*.837"))
    assert {p.name[-8:-4] for p in files} == {"837P", "837I"}
    total = 0
    for path in files:
        expected = oracle(path.read_bytes(), path.name)
        total += expected["claims"].height
        assert_same_tables(parse_x12_file(path).tables, expected)
        # Small chunks: transaction and claim indexes must carry over chunk boundaries.
        assert_same_tables(parse_x12_file(path, chunk_bytes=4096).tables, expected)
    assert total == 160


def test_missing_total_charge_is_reported_at_the_clm_without_phi() -> None:
    data = _837i().replace("CLM*ACCT2*200*", "CLM*ACCT2**").encode()
    with pytest.raises(X12ParseError) as err:
        parse_x12(data, source="in.837")
    assert (err.value.segment_number, err.value.segment_id) == (24, "CLM")
    assert "ACCT2" not in str(err.value) and "DOE" not in str(err.value)
    assert_same_outcome(data)


def test_bad_line_date_and_units_errors_match_the_oracle() -> None:
    for bad in (
        _837i().replace("DTP*472*D8*20240101", "DTP*472*D8*20241301"),
        _837i().replace("SV2*0120**500*DA*4", "SV2*0120**500*DA*X4"),
        _837i().replace("DMG*D8*19500101*F", "DMG*D8*1950010*F"),
    ):
        with pytest.raises(X12ParseError):
            parse_x12(bad, source="in.837")
        assert_same_outcome(bad.encode())


# --- Hypothesis: random 837 structures from a small grammar --------------------------------

_DAY = st.sampled_from(["20240101", "20240215", "20231231", "20240301"])
_TEXT = st.sampled_from(["", "A", "SMITH", "DOE", "X1"])
_CODE = st.sampled_from(["", "I10", "E119", "Z00"])


@st.composite
def _dtp(draw, qualifiers: list[str]) -> str:
    sid = draw(st.sampled_from(["DTP", "DTM"]))
    q = draw(st.sampled_from(qualifiers))
    kind = draw(st.sampled_from(["D8", "RD8", "RD8-nodash", "DT", "empty"]))
    a, b = draw(_DAY), draw(_DAY)
    value = {
        "D8": (a, "D8"),
        "RD8": (f"{a}-{b}", "RD8"),
        "RD8-nodash": (a, "RD8"),
        "DT": (a + "0830", "DT"),
        "empty": ("", "D8"),
    }[kind]
    return f"{sid}*{q}*{value[1]}*{value[0]}"


def _segment(draw) -> str:
    kind = draw(st.sampled_from(["HL", "NM1", "DMG", "CLM", "LX", "SV1", "SV2", "SV3", "DTP", "REF", "HI", "N3"]))
    if kind == "HL":
        return f"HL*1**{draw(st.sampled_from(['20', '22', '23', '', '99']))}*0"
    if kind == "NM1":
        q = draw(st.sampled_from(["85", "IL", "PR", "QC", "41"]))
        return f"NM1*{q}*1*{draw(_TEXT)}*{draw(_TEXT)}****MI*{draw(_TEXT)}"
    if kind == "DMG":
        return f"DMG*D8*{draw(st.sampled_from(['', '19700101', '20010630', '19701301']))}*{draw(st.sampled_from(['', 'F', 'M']))}"
    if kind == "CLM":
        composite = draw(st.sampled_from(["11:A:1", "13:A:7", "", "22", "11::"]))
        charge = draw(st.sampled_from(["100", "12.5", "0", "100", "12.5", "", "1.234"]))  # '' and '1.234' are errors
        return f"CLM*{draw(_TEXT)}*{charge}***{composite}**A*Y*Y"
    if kind == "LX":
        return "LX*1"
    if kind in ("SV1", "SV2", "SV3"):
        proc = draw(st.sampled_from(["HC:99213", "HC:99213:25:59", "", "HC", "HC::25", "HC:A:B:C:D:E", "AD:D2740"]))
        charge, units = draw(st.sampled_from(["10", "", "7.25"])), draw(st.sampled_from(["1", "", "2.5"]))
        if kind == "SV1":
            return f"SV1*{proc}*{charge}*UN*{units}*{draw(st.sampled_from(['', '11']))}**1"
        if kind == "SV3":
            return f"SV3*{proc}*{charge}*{draw(st.sampled_from(['', '11']))}***{units}"
        return f"SV2*{draw(st.sampled_from(['0450', '']))}*{proc}*{charge}*UN*{units}"
    if kind == "DTP":
        return draw(_dtp(["434", "435", "472", "431"]))
    if kind == "REF":
        return f"REF*{draw(st.sampled_from(['G1', 'EA']))}*{draw(_TEXT)}"
    if kind == "HI":
        n = draw(st.integers(1, 3))
        return "HI*" + "*".join(
            f"{draw(st.sampled_from(['ABK', 'ABF', 'BK', 'BF', 'APR', '']))}:{draw(_CODE)}" for _ in range(n)
        )
    return "N3*1 MAIN ST"


@st.composite
def interchanges(draw) -> bytes:
    transactions = []
    for t in range(draw(st.integers(1, 3))):
        body = [_segment(draw) for _ in range(draw(st.integers(0, 40)))]
        ref = draw(st.sampled_from(["005010X222A1", "005010X223A2", "005010X224A2", "005010"]))
        segs = [f"ST*837*{t + 1:04d}*{ref}", "BHT*0019*00*1*20240101*1200*CH", *body]
        segs.append(f"SE*{len(segs) + 1}*{t + 1:04d}")
        transactions += segs
    all_segs = [
        ISA,
        "GS*HC*S*R*20240101*1200*5*X*005010X222A1",
        *transactions,
        f"GE*{draw(st.integers(1, 3))}*5",
        "IEA*1*000000002",
    ]
    return ("~\n".join(all_segs) + "~\n").encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(interchanges())
def test_random_837_structures_match_the_oracle(data: bytes) -> None:
    # RD8 ranges here always have both ends: the legacy code crashed (max() of nothing) on "D-".
    assert_same_outcome(data)
