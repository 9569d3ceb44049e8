"""The sandbox payer: a 271 written out by hand for a member it does not know, and the kinds of answer
its roster gives, read back with the platform's 271 reader."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from decimal import Decimal

import pytest

from pipelines.ingest.x12.eligibility.inquiry_270 import Envelope, Inquiry, write_270
from pipelines.ingest.x12.eligibility.response_271 import parse_271
from pipelines.ingest.x12.errors import X12ParseError
from pipelines.synthetic.eligibility_payer import ROSTER, respond

NOW = datetime(2026, 3, 15, 9, 30)
INQUIRY = Inquiry(
    payer_id="SBXPAYER",
    payer_name="SANDBOX HEALTH PLAN",
    provider_npi="1234567893",
    provider_name="HAND CLINIC",
    member_id="SBXNOBODY1",
    service_date=date(2026, 3, 20),
    service_types=("30",),
    trace_number="TRACE1",
    reference="REF1",
)
ENVELOPE = Envelope("DENIALPLATFORM", "SBXPAYER", 42, 42, 42, NOW)

# Written by hand (TR3 005010X279A1): the payer echoes BHT03 and the trace (2000C TRN*2), names the
# subscriber as asked (2100C NM1*IL) and says why there is no answer (2100C AAA*N**75*C: subscriber/insured
# not found, correct and resubmit). SE01 = 11: ST, BHT, HL, NM1, HL, NM1, HL, TRN, NM1, AAA, SE.
NOT_FOUND_271 = (
    "ISA*00*          *00*          *ZZ*SBXPAYER       *ZZ*DENIALPLATFORM *260315*1200*^*00501*000000042*0*P*:~\n"
    "GS*HB*SBXPAYER*DENIALPLATFORM*20260315*1200*42*X*005010X279A1~\n"
    "ST*271*0001*005010X279A1~\n"
    "BHT*0022*11*REF1*20260315*0930~\n"
    "HL*1**20*1~\n"
    "NM1*PR*2*SANDBOX HEALTH PLAN*****PI*SBXPAYER~\n"
    "HL*2*1*21*1~\n"
    "NM1*1P*2*HAND CLINIC*****XX*1234567893~\n"
    "HL*3*2*22*0~\n"
    "TRN*2*TRACE1*9SBXPAYER~\n"
    "NM1*IL*1******MI*SBXNOBODY1~\n"
    "AAA*N**75*C~\n"
    "SE*11*0001~\n"
    "GE*1*42~\n"
    "IEA*1*000000042~\n"
)


def _ask(member_id: str, service: date = date(2026, 3, 20), **changes):
    request = write_270(replace(INQUIRY, member_id=member_id, service_date=service, **changes), ENVELOPE)
    return parse_271(respond(request, now=NOW))


def test_an_unknown_member_gets_the_hand_written_271():
    assert respond(write_270(INQUIRY, ENVELOPE), now=NOW).decode() == NOT_FOUND_271


def test_active_member_with_benefits():
    (m,) = _ask("SBXACTIVE01").members
    assert m.trace_numbers == ("TRACE1",) and m.reference("6P") == "GRP1001"
    assert [(b.code, b.time_period, b.amount, b.percent) for b in m.benefits] == [
        ("1", None, None, None),
        ("C", "23", Decimal("1500.00"), None),
        ("C", "29", Decimal("600.00"), None),
        ("A", "27", None, Decimal("0.2")),
        ("B", "27", Decimal("25.00"), None),
        ("G", "23", Decimal("5000.00"), None),
    ]
    assert m.benefits[0].plan_description == "SANDBOX GOLD PPO"


def test_inactive_member():
    (m,) = _ask("SBXINACTIVE1").members
    assert [b.code for b in m.benefits] == ["6"]
    assert (m.period("346").start, m.period("347").start) == (date(2024, 1, 1), date(2025, 12, 31))


def test_other_coverage_member():
    (m,) = _ask("SBXOTHER001").members
    other = m.benefits[-1]
    assert other.code == "R" and other.entities[0].name == "OTHER MUTUAL INSURANCE"
    assert other.entities[0].code == "PRP"


def test_mid_year_end():
    assert _ask("SBXMIDYEAR01", date(2026, 6, 30)).members[0].benefits[0].code == "1"
    assert [b.code for b in _ask("SBXMIDYEAR01", date(2026, 7, 1)).members[0].benefits] == ["6"]


@pytest.mark.parametrize(("member_id", "reason"), [("SBXNOBODY1", "75"), ("AB-1", "72"), ("abcdefgh", "72")])
def test_unknown_and_malformed_member_ids(member_id, reason):
    (m,) = _ask(member_id).members
    assert m.benefits == () and [r.reason for r in m.rejections] == [reason]


def test_birth_date_mismatch_and_match():
    (m,) = _ask("SBXDOB00001", birth_date=date(1980, 3, 1)).members
    assert [r.reason for r in m.rejections] == ["71"]
    (m,) = _ask("SBXDOB00001", birth_date=date(1980, 2, 29)).members
    assert m.rejections == () and m.benefits[0].code == "1"


def test_busy_payer_answers_at_the_source_level():
    r = _ask("SBXBUSY42")
    assert r.members == () and [(x.level, x.reason, x.follow_up) for x in r.rejections] == [("source", "42", "R")]


def test_a_malformed_270_is_refused():
    with pytest.raises(X12ParseError):
        respond(b"ISA*garbage~", now=NOW)


def test_roster_ids_are_valid_member_ids():
    assert all(m.member_id == key for key, m in ROSTER.items())
