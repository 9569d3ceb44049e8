"""837P/837I claims parse into ``claims`` and ``claim_lines``."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pipelines.ingest.x12 import X12ParseError, parse_x12, parse_x12_file
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES
ISA = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *240101*1200*^*00501*000000002*0*P*:"


def test_837p_demo() -> None:
    result = parse_x12_file(FIXTURES / "lfh_5010_837p_demo.837")
    assert result.kind == "837"
    assert result.quality.height == 0 and "check" in result.quality.columns
    claim = result.tables["claims"].row(0, named=True)
    assert claim["claim_type"] == "837P"
    assert claim["patient_control_number"] == "26463774"
    assert claim["total_charge"] == Decimal("100.00")
    assert (claim["facility_code"], claim["frequency_code"]) == ("11", "1")
    assert (claim["billing_provider_npi"], claim["billing_provider_name"]) == ("1912301953", "BEN KILDARE SERVICE")
    assert (claim["payer_name"], claim["payer_id"]) == ("KEY INSURANCE COMPANY", "999996666")
    assert claim["subscriber_member_id"] == "JS00111223333"
    # A patient loop (HL 23) exists, so the patient is not the subscriber.
    assert (claim["patient_last_name"], claim["patient_first_name"]) == ("SMITH", "TED")
    assert (claim["patient_birth_date"], claim["patient_gender"]) == (date(1973, 5, 1), "M")
    assert claim["diagnosis_codes"] == ["0340", "V7389"]
    assert claim["principal_diagnosis"] == "0340"
    # No claim-level statement dates in 837P: earliest/latest line date.
    assert (claim["statement_from"], claim["statement_to"]) == (date(2006, 10, 3), date(2006, 10, 10))
    assert claim["line_count"] == 4
    lines = result.tables["claim_lines"]
    assert lines["procedure_code"].to_list() == ["99213", "87070", "99214", "86663"]
    assert lines["charge_amount"].sum() == claim["total_charge"]
    assert lines["units"].to_list() == [Decimal("1")] * 4
    assert lines["line_index"].to_list() == [0, 1, 2, 3]


def _837i() -> str:
    segs = [
        ISA,
        "GS*HC*S*R*20240101*1200*5*X*005010X223A3",
        "ST*837*0001*005010X223A3",
        "BHT*0019*00*1*20240101*1200*CH",
        "NM1*41*2*SUBMITTER*****46*1",
        "HL*1**20*1",
        "NM1*85*2*GENERAL HOSPITAL*****XX*1234567893",
        "HL*2*1*22*0",
        "SBR*P*18*******MB",
        "NM1*IL*1*DOE*JANE****MI*MEMBER1",
        "DMG*D8*19500101*F",
        "NM1*PR*2*MEDICARE*****PI*00435",
        "CLM*ACCT1*1500.50***11:A:1**A*Y*Y",
        "DTP*434*RD8*20240101-20240105",
        "DTP*435*DT*202401010830",
        "REF*G1*AUTH123",
        "HI*ABK:I10*ABF:E119*ABF:N189",
        "NM1*IL*1*OTHER*PERSON****MI*COBMEMBER",
        "LX*1",
        "SV2*0450*HC:99284:25*1000.50*UN*1",
        "DTP*472*D8*20240101",
        "LX*2",
        "SV2*0120**500*DA*4",
        "CLM*ACCT2*200***13:A:7**A*Y*Y",
        "LX*1",
        "SV2*0300*HC:80053*200*UN*2",
        "DTP*472*RD8*20240201-20240203",
    ]
    segs.append(f"SE*{len(segs) - 1}*0001")
    segs += ["GE*1*5", "IEA*1*000000002"]
    return "~\n".join(segs) + "~\n"


def test_837i_institutional_claims() -> None:
    result = parse_x12(_837i())
    claims = result.tables["claims"]
    assert claims["claim_type"].to_list() == ["837I", "837I"]
    first = claims.row(0, named=True)
    assert (first["statement_from"], first["statement_to"]) == (date(2024, 1, 1), date(2024, 1, 5))
    assert first["admission_date"] == date(2024, 1, 1)
    assert first["prior_authorization"] == "AUTH123"
    assert first["diagnosis_codes"] == ["I10", "E119", "N189"]
    assert first["principal_diagnosis"] == "I10"
    # No patient loop: the subscriber is the patient; the COB NM1*IL after CLM is ignored.
    assert (first["patient_last_name"], first["subscriber_member_id"]) == ("DOE", "MEMBER1")
    assert first["patient_birth_date"] == date(1950, 1, 1)
    assert first["line_count"] == 2
    second = claims.row(1, named=True)
    assert (second["frequency_code"], second["facility_code"]) == ("7", "13")
    assert (second["statement_from"], second["statement_to"]) == (date(2024, 2, 1), date(2024, 2, 3))
    assert second["patient_last_name"] == "DOE"
    lines = result.tables["claim_lines"]
    assert lines["revenue_code"].to_list() == ["0450", "0120", "0300"]
    assert lines["procedure_code"].to_list() == ["99284", None, "80053"]
    assert lines["modifier_1"].to_list() == ["25", None, None]
    assert lines["charge_amount"].to_list() == [Decimal("1000.50"), Decimal("500.00"), Decimal("200.00")]
    assert lines["units"].to_list() == [Decimal("1"), Decimal("4"), Decimal("2")]
    assert lines["claim_index"].to_list() == [0, 0, 1]


def test_837_bad_charge_raises_with_segment() -> None:
    with pytest.raises(X12ParseError) as err:
        parse_x12(_837i().replace("CLM*ACCT2*200*", "CLM*ACCT2*2OO*"), source="in.837")
    assert (err.value.segment_number, err.value.segment_id) == (24, "CLM")


def test_837d_sv3_lines_carry_their_charge_procedure_and_count() -> None:
    """837D dental lines (005010X224A2 loop 2400 SV3: SV301 procedure AD:code, SV302 charge, SV303 place of
    service, SV306 procedure count) parse with their charge and code (issue 24; they parsed empty before).
    tests/fixtures/x12/hand/dental_sv3.837, figures by hand."""
    result = parse_x12_file(X12_FIXTURES / "hand" / "dental_sv3.837")
    claims = result.tables["claims"]
    assert claims["claim_type"].to_list() == ["837D"]
    assert (claims.row(0, named=True)["total_charge"], claims.row(0, named=True)["line_count"]) == (
        Decimal("1325.00"),
        3,
    )
    lines = result.tables["claim_lines"]
    assert lines["procedure_qualifier"].to_list() == ["AD", "AD", "AD"]
    assert lines["procedure_code"].to_list() == ["D2740", "D0220", "D1110"]
    assert lines["modifier_1"].to_list() == [None, "XX", None]
    # 1200 + 25 + 100 = 1325, the CLM02
    assert lines["charge_amount"].to_list() == [Decimal("1200.00"), Decimal("25.00"), Decimal("100.00")]
    assert lines["units"].to_list() == [Decimal("1"), Decimal("2"), None]
    assert lines["place_of_service"].to_list() == ["11", "11", None]
    assert lines["revenue_code"].to_list() == [None, None, None]
