"""The 271 reader against hand-written responses and public TR3 examples. Every expected value below is
read off the fixture file by hand (tests/fixtures/x12/eligibility/README.md says where each came from)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pipelines.ingest.x12.eligibility.model import Entity, Period, Rejection
from pipelines.ingest.x12.eligibility.response_271 import parse_271
from pipelines.ingest.x12.errors import X12ParseError
from tests.support.paths import X12_FIXTURES

HERE = X12_FIXTURES / "eligibility"


def _read(name: str) -> bytes:
    return (HERE / name).read_bytes()


def test_active_with_deductible_coinsurance_copay_and_out_of_pocket():
    r = parse_271(_read("hand_active_share.271"))
    # envelope: ISA13 000000101, GS06 101, ST02 0101; BHT03 REF0101
    assert (r.interchange_control_number, r.group_control_number, r.transaction_control_number) == (
        "000000101",
        "101",
        "0101",
    )
    assert r.reference == "REF0101"
    assert r.payer == Entity("PR", "HAND HEALTH PLAN", "PI", "HAND01")
    assert r.receiver == Entity("1P", "HAND CLINIC", "XX", "1234567893")
    assert r.rejections == ()
    (m,) = r.members
    assert (m.level, m.last_name, m.first_name, m.member_id) == ("subscriber", "ROE", "RICHARD", "HM100200300")
    assert m.birth_date == date(1975, 7, 4)  # DMG*D8*19750704
    assert m.trace_numbers == ("TRACE0101",)
    assert m.reference("6P") == "GRP-778"
    assert m.periods == (Period("346", date(2026, 1, 1), date(2026, 1, 1)),)
    codes = [b.code for b in m.benefits]
    assert codes == ["1", "C", "C", "C", "A", "A", "B", "G"]  # 8 EB segments, file order
    active = m.benefits[0]
    assert (active.coverage_level, active.service_types, active.insurance_type, active.plan_description) == (
        "IND",
        ("30",),
        "PR",
        "HAND GOLD PPO",
    )
    # EB*C*IND*30***23*2000.00*****Y: calendar-year deductible 2000.00 in network
    ded = m.benefits[1]
    assert (ded.time_period, ded.amount, ded.percent, ded.in_network) == ("23", Decimal("2000.00"), None, "Y")
    assert (m.benefits[2].time_period, m.benefits[2].amount) == ("29", Decimal("1250.50"))  # remaining
    assert (m.benefits[3].amount, m.benefits[3].in_network) == (Decimal("4000"), "N")
    # EB*A*IND*30***27**.2****Y: 20 percent coinsurance per visit, in network; .4 out of network
    assert (m.benefits[4].time_period, m.benefits[4].amount, m.benefits[4].percent, m.benefits[4].in_network) == (
        "27",
        None,
        Decimal("0.2"),
        "Y",
    )
    assert (m.benefits[5].percent, m.benefits[5].in_network) == (Decimal("0.4"), "N")
    copay = m.benefits[6]  # EB*B*IND*98***27*35*****Y
    assert (copay.service_types, copay.time_period, copay.amount, copay.in_network) == (
        ("98",),
        "27",
        Decimal("35"),
        "Y",
    )
    oop = m.benefits[7]  # EB*G*IND*30***23*6500*****Y, then its own DTP*291 RD8
    assert (oop.amount, oop.periods) == (Decimal("6500"), (Period("291", date(2026, 1, 1), date(2026, 12, 31)),))


def test_inactive_with_plan_begin_and_end():
    r = parse_271(_read("hand_inactive.271"))
    (m,) = r.members
    assert m.periods == (
        Period("346", date(2024, 1, 1), date(2024, 1, 1)),
        Period("347", date(2025, 12, 31), date(2025, 12, 31)),
    )
    (b,) = m.benefits
    assert (b.code, b.coverage_level, b.service_types, b.plan_description) == ("6", "IND", ("30",), "HAND SILVER HMO")


def test_wrong_member_id_is_an_aaa_72_on_the_subscriber():
    r = parse_271(_read("hand_wrong_member_id.271"))
    (m,) = r.members
    assert m.member_id == "XX-1" and m.last_name is None
    assert m.benefits == ()
    # AAA*Y**72*C is segment 12 of the interchange (ISA 1, GS 2, ST 3, ... AAA 12)
    assert m.rejections == (Rejection("subscriber", True, "72", "C", 12),)


def test_other_coverage_names_each_other_payer():
    r = parse_271(_read("hand_other_coverage.271"))
    (m,) = r.members
    assert m.reference("18") == "PLAN-55" and m.reference("6P") is None
    assert [b.code for b in m.benefits] == ["1", "R", "R"]
    first, second = m.benefits[1], m.benefits[2]
    assert first.insurance_type == "MB" and first.entities == (Entity("PRP", "MEDICARE PART B", "PI", "MCRB01"),)
    assert first.periods == (Period("290", date(2025, 1, 1), date(2025, 1, 1)),)
    assert second.insurance_type == "C1" and second.entities == (Entity("PR", "ACME COMMERCIAL", "PI", "ACME77"),)
    assert (m.benefits[0].coverage_level, m.benefits[0].insurance_type) == ("FAM", "HM")


def test_plan_dates_on_the_benefit_loop():
    r = parse_271(_read("hand_plan_ended.271"))
    (m,) = r.members
    assert m.periods == () and m.reference("6P") == "GRP-900"
    active = m.benefits[0]
    assert active.period("346") == Period("346", date(2026, 1, 1), date(2026, 1, 1))
    assert active.period("347") == Period("347", date(2026, 6, 30), date(2026, 6, 30))
    assert m.benefits[1].amount == Decimal("1000")


def test_public_subscriber_sample():
    r = parse_271(_read("lfh_5010_subscriber.271"))
    assert (r.interchange_control_number, r.transaction_control_number, r.reference) == (
        "000000907",
        "0001",
        "10001234",
    )
    assert r.payer == Entity("PR", "PAYER C", "PI", "12345")
    assert r.receiver == Entity("1P", "DOE", "XX", "1467857193")
    (m,) = r.members
    assert (m.member_id, m.birth_date, m.trace_numbers) == ("00000000001", date(1970, 1, 1), ("930000000000",))
    assert m.period("346") == Period("346", date(2021, 1, 1), date(2021, 1, 1))
    assert [b.code for b in m.benefits] == ["1", "L", "1", "B", "B"]
    assert m.benefits[0].plan_description == "GOLD 123 PLAN"
    assert m.benefits[1].entities == (Entity("1P", "DOE", "XX", "1467857193"),)  # the LS/LE 2120C loop
    ten_types = ("1", "33", "35", "47", "86", "88", "98", "AL", "MH", "UC")  # EB03 repeated with ISA11 "^"
    assert m.benefits[2].service_types == ten_types
    in_net, out_net = m.benefits[3], m.benefits[4]
    assert (in_net.insurance_type, in_net.time_period, in_net.amount, in_net.in_network) == (
        "HM",
        "27",
        Decimal("10.00"),
        "Y",
    )
    assert (out_net.amount, out_net.in_network) == (Decimal("30.00"), "N")


def test_public_dependent_sample():
    r = parse_271(_read("lfh_5010_dependent_benefit_check.271"))
    subscriber, dependent = r.members
    assert (subscriber.level, subscriber.member_id, subscriber.has_dependents, subscriber.benefits) == (
        "subscriber",
        "123456789",
        True,
        (),
    )
    assert subscriber.birth_date == date(1963, 5, 19)
    assert (dependent.level, dependent.member_id, dependent.first_name) == ("dependent", None, "MARY")
    assert dependent.birth_date == date(1998, 10, 14)
    assert dependent.trace_numbers == ("93175-012547",)
    assert dependent.period("346") == Period("346", date(2006, 1, 1), date(2006, 1, 1))
    assert [b.code for b in dependent.benefits] == ["1", "L", "1", "B", "B"]
    assert dependent.benefits[1].entities == (Entity("P3", "JONES", "SV", "0202034"),)
    assert r.receiver == Entity("1P", "BONE AND JOIN CLINIC", "SV", "2000035")


def test_public_error_sample_is_refused_for_its_se02_and_read_once_corrected():
    raw = _read("lfh_5010_receiver_rejected_bad_se02.271")
    with pytest.raises(X12ParseError) as err:
        parse_271(raw)
    assert err.value.segment_id == "SE" and err.value.segment_number == 10
    assert "does not match ST02 '4321'" in str(err.value)
    r = parse_271(raw.replace(b"SE*8*4323", b"SE*8*4321"))
    assert r.members == ()
    # AAA*Y**50*N after the receiver's NM1: segment 9 (ISA, GS, ST, BHT, HL, NM1, HL, NM1, AAA)
    assert r.rejections == (Rejection("receiver", True, "50", "N", 9),)
