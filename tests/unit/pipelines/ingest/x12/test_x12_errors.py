"""Malformed input raises X12ParseError naming the segment; never a partial result."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.ingest.x12 import X12ParseError, detect_transaction_set, parse_x12, parse_x12_file
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES
ISA = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *240101*1200*^*00501*000000001*0*P*:"


def body(*claims: str) -> list[str]:
    return [
        "BPR*I*100*C*CHK************20240105",
        "TRN*1*TRACE1*1512345678",
        "N1*PR*PAYER",
        "N1*PE*HOSPITAL*XX*1234567893",
        "LX*1",
        *claims,
    ]


CLAIM = [
    "CLP*PCN1*1*150*100**12*ICN1",
    "NM1*QC*1*DOE*JANE****MI*SECRETMEMBER42",
    "SVC*HC:99213*150*100**1",
    "CAS*CO*45*50",
]


def envelope(segments: list[str], *, st02: str = "0001", se01: int | None = None, se02: str | None = None) -> str:
    count = len(segments) + 2 if se01 is None else se01
    seg = [
        ISA,
        "GS*HP*S*R*20240101*1200*7*X*005010X221A1",
        f"ST*835*{st02}",
        *segments,
        f"SE*{count}*{se02 or st02}",
        "GE*1*7",
        "IEA*1*000000001",
    ]
    return "~".join(seg) + "~"


def raises(data: str | bytes, **kw) -> X12ParseError:
    with pytest.raises(X12ParseError) as err:
        parse_x12(data, source="claims.835", **kw)
    return err.value


def test_the_valid_baseline_parses() -> None:
    result = parse_x12(envelope(body(*CLAIM)))
    assert result.tables["remittance_claims"].height == 1
    assert result.segments == 15


def test_wrong_se01_count_names_the_se_segment() -> None:
    err = raises(envelope(body(*CLAIM), se01=13))
    assert (err.segment_number, err.segment_id) == (13, "SE")
    assert err.source == "claims.835"
    assert str(err) == "claims.835: segment 13 (SE): expected SE01=11 segments in transaction 0001, found '13'"
    assert err.expected == "SE01=11"


def test_wrong_se01_is_tolerated_when_not_strict() -> None:
    result = parse_x12(envelope(body(*CLAIM), se01=99), strict_envelopes=False)
    assert result.tables["remittance_claims"].height == 1


def test_st_se_control_number_mismatch() -> None:
    err = raises(envelope(body(*CLAIM), se02="0002"))
    assert (err.segment_number, err.segment_id) == (13, "SE")
    assert "0001" in str(err) and "ST02" in str(err)


def test_ge_and_iea_counts_and_controls_are_checked() -> None:
    text = envelope(body(*CLAIM))
    err = raises(text.replace("GE*1*7", "GE*2*7"))
    assert (err.segment_number, err.segment_id) == (14, "GE")
    err = raises(text.replace("GE*1*7", "GE*1*8"))
    assert err.segment_id == "GE" and "GS06" in str(err)
    err = raises(text.replace("IEA*1*000000001", "IEA*1*000000002"))
    assert (err.segment_number, err.segment_id) == (15, "IEA")
    err = raises(text.replace("IEA*1*000000001", "IEA*3*000000001"))
    assert err.segment_id == "IEA" and "IEA01=1" in str(err)


def test_missing_se_is_structural_even_when_lenient() -> None:
    text = envelope(body(*CLAIM)).replace("SE*11*0001~", "")
    for strict in (True, False):
        err = raises(text, strict_envelopes=strict)
        assert (err.segment_number, err.segment_id) == (13, "GE")
        assert "SE" in err.expected


def test_missing_se_before_next_st() -> None:
    one = envelope(body(*CLAIM))
    two = one.replace("SE*11*0001~", "ST*835*0002~" + "~".join(body(*CLAIM)) + "~SE*11*0002~")
    err = raises(two.replace("GE*1*7", "GE*2*7"))
    assert (err.segment_number, err.segment_id) == (13, "ST")


def test_truncated_file_without_iea() -> None:
    text = envelope(body(*CLAIM))
    err = raises(text[: text.index("IEA")])
    assert err.segment_number == 14 and err.expected == "IEA"
    err = raises(text[: text.index("CAS")])
    assert "truncated" in str(err) and err.expected.startswith("SE")


def test_zero_bytes_and_missing_isa(tmp_path: Path) -> None:
    assert "0 bytes" in str(raises(b""))
    empty = tmp_path / "empty.835"
    empty.write_bytes(b"")
    with pytest.raises(X12ParseError, match=r"empty\.835: empty input"):
        parse_x12_file(empty)
    err = raises(envelope(body(*CLAIM)).replace("ISA*", "XSA*", 1))
    assert "no ISA" in str(err) and err.segment_number is None


def test_binary_garbage() -> None:
    garbage = bytes(range(256)) * 20
    raises(garbage)
    raises(b"ISA\x00\x01\x02" * 50)


def test_mixed_835_and_837_is_an_error() -> None:
    text = envelope(body(*CLAIM))
    mixed = text.replace("GE*1*7", "ST*837*0002*005010X222A1~BHT*0019*00*1*20240101*1200*CH~SE*3*0002~GE*2*7")
    err = raises(mixed)
    assert (err.segment_number, err.segment_id) == (14, "ST")
    assert "mixes" in str(err)


def test_unsupported_transaction_set() -> None:
    err = raises(envelope(body(*CLAIM)).replace("ST*835", "ST*999"))
    assert err.segment_id == "ST" and "unsupported" in str(err)


def test_segment_outside_a_transaction() -> None:
    text = envelope(body(*CLAIM)).replace("GE*1*7", "CLP*X*1*1*1~GE*1*7")
    err = raises(text)
    assert (err.segment_number, err.segment_id) == (14, "CLP")


def test_bad_amount_names_segment_and_never_the_value() -> None:
    bad = [c.replace("CLP*PCN1*1*150*", "CLP*PCN1*1*1x0*") for c in CLAIM]
    err = raises(envelope(body(*bad)))
    assert (err.segment_number, err.segment_id) == (9, "CLP")
    assert "CLP03" in str(err) and "1x0" not in str(err)


def test_amount_with_too_many_decimals_is_not_truncated() -> None:
    bad = [c.replace("CAS*CO*45*50", "CAS*CO*45*50.005") for c in CLAIM]
    err = raises(envelope(body(*bad)))
    assert (err.segment_number, err.segment_id) == (12, "CAS")


def test_bad_date_names_segment() -> None:
    claim = [*CLAIM[:2], "DTM*232*20241305", *CLAIM[2:]]
    err = raises(envelope(body(*claim)))
    assert (err.segment_number, err.segment_id) == (11, "DTM")
    assert "DTM02" in str(err)


def test_bad_bpr16_is_a_warning_with_the_production_date_as_fallback() -> None:
    # BPR16 has a standard fallback (DTM*405), so a bad one is a warning, never a failed file.
    with_405 = body(*CLAIM)
    with_405.insert(2, "DTM*405*20240103")
    result = parse_x12(envelope(with_405).replace("20240105", "20241305"))
    assert str(result.tables["remittances"]["payment_date"][0]) == "2024-01-03"
    assert result.warnings == (
        "segment 4 (BPR): BPR16 is not a valid CCYYMMDD date; the DTM*405 production date is used as the payment date",
    )
    alone = parse_x12(envelope(body(*CLAIM)).replace("20240105", "20241305"))
    assert alone.tables["remittances"]["payment_date"][0] is None
    assert "no DTM*405" in alone.warnings[0]


def test_phi_never_appears_in_messages() -> None:
    # An invalid segment right after the patient NM1: the message must not quote it.
    claim = [*CLAIM[:2], "dob*19800101*SECRETMEMBER42", *CLAIM[2:]]
    err = raises(envelope(body(*claim), se01=12))
    assert err.segment_number == 11
    assert "SECRET" not in str(err) and "DOE" not in str(err) and "19800101" not in str(err)


def test_cas_amount_without_reason() -> None:
    bad = [c.replace("CAS*CO*45*50", "CAS*CO**50") for c in CLAIM]
    err = raises(envelope(body(*bad)))
    assert (err.segment_number, err.segment_id) == (12, "CAS")


def test_cas_without_any_triplet() -> None:
    bad = [c.replace("CAS*CO*45*50", "CAS*CO") for c in CLAIM]
    err = raises(envelope(body(*bad)))
    assert (err.segment_number, err.segment_id) == (12, "CAS")


def test_claim_segments_before_any_clp() -> None:
    err = raises(envelope(body("CAS*CO*45*50", *CLAIM)))
    assert (err.segment_number, err.segment_id) == (9, "CAS")
    err = raises(envelope(body("SVC*HC:99213*150*100**1", *CLAIM)))
    assert (err.segment_number, err.segment_id) == (9, "SVC")


def test_detect_transaction_set() -> None:
    assert detect_transaction_set(envelope(body(*CLAIM))) == "835"
    assert detect_transaction_set((FIXTURES / "lfh_5010_837p_demo.837").read_bytes()) == "837"
    assert detect_transaction_set((FIXTURES / "stupidedi_5010_plus_delims_crlf_preamble.835").read_bytes()) == "835"
    assert detect_transaction_set(b"hello world") is None
    assert detect_transaction_set(b"") is None
    assert detect_transaction_set(envelope(body(*CLAIM)).replace("ST*835", "ST*270")) is None
