"""The 270 writer against a 270 written out by hand, its reader, and the values it refuses."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

import pytest

from pipelines.ingest.x12.eligibility.inquiry_270 import Envelope, Inquiry, npi_valid, read_270, write_270
from pipelines.ingest.x12.errors import X12ParseError

INQUIRY = Inquiry(
    payer_id="SBXPAYER",
    payer_name="SANDBOX HEALTH PLAN",
    provider_npi="1234567893",
    provider_name="HAND CLINIC",
    member_id="SBXACTIVE01",
    service_date=date(2026, 3, 20),
    service_types=("30", "98"),
    trace_number="TRACE1",
    reference="REF1",
    birth_date=date(1980, 2, 29),
)
ENVELOPE = Envelope("DENIALPLATFORM", "SBXPAYER", 42, 42, 42, datetime(2026, 3, 15, 9, 30))

# Written by hand from TR3 005010X279A1 (2000A/2100A, 2000B/2100B, 2000C/2100C, 2110C EQ); SE01 = 14
# counts ST (1) through SE (14); ISA06/ISA08 padded to 15 characters.
EXPECTED = (
    "ISA*00*          *00*          *ZZ*DENIALPLATFORM *ZZ*SBXPAYER       *260315*0930*^*00501*000000042*0*P*:~\n"
    "GS*HS*DENIALPLATFORM*SBXPAYER*20260315*0930*42*X*005010X279A1~\n"
    "ST*270*0042*005010X279A1~\n"
    "BHT*0022*13*REF1*20260315*0930~\n"
    "HL*1**20*1~\n"
    "NM1*PR*2*SANDBOX HEALTH PLAN*****PI*SBXPAYER~\n"
    "HL*2*1*21*1~\n"
    "NM1*1P*2*HAND CLINIC*****XX*1234567893~\n"
    "HL*3*2*22*0~\n"
    "TRN*1*TRACE1*9000000001~\n"
    "NM1*IL*1******MI*SBXACTIVE01~\n"
    "DMG*D8*19800229~\n"
    "DTP*291*D8*20260320~\n"
    "EQ*30~\n"
    "EQ*98~\n"
    "SE*14*0042~\n"
    "GE*1*42~\n"
    "IEA*1*000000042~\n"
)


def test_the_270_matches_the_hand_written_one():
    assert write_270(INQUIRY, ENVELOPE).decode() == EXPECTED
    assert len(EXPECTED.splitlines()[0]) == 106  # the ISA's fixed width with its terminator


def test_the_reader_gets_the_inquiry_back():
    received = read_270(EXPECTED.encode())
    assert received.inquiry == INQUIRY
    assert received.inquiry.birth_date == date(1980, 2, 29)  # repr=False fields still compare
    assert (received.sender_id, received.receiver_id, received.interchange_control, received.transaction_control) == (
        "DENIALPLATFORM",
        "SBXPAYER",
        "000000042",
        "0042",
    )


def test_without_a_birth_date_there_is_no_dmg():
    text = write_270(replace(INQUIRY, birth_date=None), ENVELOPE).decode()
    assert "DMG" not in text and "SE*13*0042" in text


def test_npi_check_digit():
    # CMS "Requirements for the NPI check digit": 123456789 has check digit 3 (Luhn over 80840123456789).
    assert npi_valid("1234567893")
    assert not npi_valid("1234567890")
    assert not npi_valid("123456789") and not npi_valid("12345678a3")


@pytest.mark.parametrize(
    ("change", "phrase"),
    [
        ({"provider_npi": "1234567890"}, "check digit"),
        ({"member_id": "AB*CD"}, "member id"),
        ({"member_id": ""}, "member id"),
        ({"payer_name": "ACME~PLAN"}, "payer name"),
        ({"service_types": ()}, "service type"),
        ({"service_types": ("300",)}, "service type code"),
        ({"service_types": ("30",) * 100}, "service type"),
        ({"last_name": "O:NEIL"}, "last name"),
    ],
)
def test_values_the_270_cannot_carry_are_refused_without_quoting_them(change, phrase):
    with pytest.raises(ValueError) as err:
        write_270(replace(INQUIRY, **change), ENVELOPE)
    assert phrase in str(err.value)
    for value in change.values():
        if isinstance(value, str) and value:
            assert value not in str(err.value)


def test_a_271_is_not_read_as_a_270():
    with pytest.raises(X12ParseError) as err:
        read_270(EXPECTED.replace("ST*270", "ST*271").encode())
    assert "unsupported transaction set '271'" in str(err.value)


def test_a_270_without_its_service_date_is_refused():
    text = EXPECTED.replace("DTP*291*D8*20260320~\n", "").replace("SE*14", "SE*13")
    with pytest.raises(X12ParseError) as err:
        read_270(text.encode())
    assert "DTP*291" in str(err.value)
