"""What each kind of 271 means for a check (api/denials/eligibility/summary.py), on the hand fixtures and
the public samples; every expected value is read off the files by hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.denials.eligibility.summary import OtherCoverage, ShareFigure, summarise
from pipelines.ingest.x12.eligibility.response_271 import parse_271
from tests.support.paths import X12_FIXTURES

HERE = X12_FIXTURES / "eligibility"


def _summary(name: str, service: date):
    return summarise(parse_271((HERE / name).read_bytes()), service)


def test_active_with_patient_share():
    s = _summary("hand_active_share.271", date(2026, 3, 20))
    assert (s.status, s.reason, s.rejection_codes, s.payer_name) == ("active", None, (), "HAND HEALTH PLAN")
    assert (s.plan_name, s.group_number, s.plan_begin, s.plan_end) == (
        "HAND GOLD PPO",
        "GRP-778",
        date(2026, 1, 1),
        None,
    )
    assert s.other_coverage == ()
    assert s.patient_share == (
        ShareFigure("deductible", "IND", ("30",), "23", Decimal("2000.00"), None, "Y"),
        ShareFigure("deductible", "IND", ("30",), "29", Decimal("1250.50"), None, "Y"),
        ShareFigure("deductible", "IND", ("30",), "23", Decimal("4000"), None, "N"),
        ShareFigure("coinsurance", "IND", ("30",), "27", None, Decimal("0.2"), "Y"),
        ShareFigure("coinsurance", "IND", ("30",), "27", None, Decimal("0.4"), "N"),
        ShareFigure("copayment", "IND", ("98",), "27", Decimal("35"), None, "Y"),
        ShareFigure("out_of_pocket", "IND", ("30",), "23", Decimal("6500"), None, "Y"),
    )


def test_active_but_before_the_plan_begins_is_inactive():
    s = _summary("hand_active_share.271", date(2025, 12, 31))  # the plan begins 2026-01-01
    assert (s.status, s.reason) == ("inactive", "the plan begins after the service date")


def test_inactive():
    s = _summary("hand_inactive.271", date(2026, 3, 20))
    assert (s.status, s.reason) == ("inactive", "the payer reports the coverage inactive")
    assert (s.plan_name, s.plan_begin, s.plan_end) == ("HAND SILVER HMO", date(2024, 1, 1), date(2025, 12, 31))


def test_wrong_member_id_is_not_found():
    s = _summary("hand_wrong_member_id.271", date(2026, 3, 20))
    assert (s.status, s.rejection_codes) == ("not_found", ("72",))
    assert s.reason == "AAA 72: invalid/missing subscriber/insured ID"
    assert s.patient_share == () and s.plan_name is None


def test_other_coverage():
    s = _summary("hand_other_coverage.271", date(2026, 3, 20))
    assert (s.status, s.group_number, s.plan_begin) == ("active", "PLAN-55", date(2025, 7, 1))
    assert s.other_coverage == (
        OtherCoverage("MEDICARE PART B", "MCRB01", "MB"),
        OtherCoverage("ACME COMMERCIAL", "ACME77", "C1"),
    )


def test_plan_ended_before_the_service_date():
    after = _summary("hand_plan_ended.271", date(2026, 8, 10))
    assert (after.status, after.reason) == ("inactive", "the plan ended before the service date")
    assert (after.plan_begin, after.plan_end, after.group_number) == (date(2026, 1, 1), date(2026, 6, 30), "GRP-900")
    on_last_day = _summary("hand_plan_ended.271", date(2026, 6, 30))
    assert on_last_day.status == "active"  # the end date is covered (DTP*347 is the last day of coverage)


def test_public_dependent_sample_answers_for_the_dependent():
    s = _summary("lfh_5010_dependent_benefit_check.271", date(2006, 5, 1))
    assert (s.status, s.plan_name, s.plan_begin, s.payer_name) == (
        "active",
        "GOLD 123 PLAN",
        date(2006, 1, 1),
        "ABC COMPANY",
    )
    assert [(p.kind, p.amount, p.in_network) for p in s.patient_share] == [
        ("copayment", Decimal("10.00"), "Y"),
        ("copayment", Decimal("30.00"), "N"),
    ]


def test_public_receiver_rejection_is_rejected():
    raw = (HERE / "lfh_5010_receiver_rejected_bad_se02.271").read_bytes().replace(b"SE*8*4323", b"SE*8*4321")
    s = summarise(parse_271(raw), date(2006, 5, 1))
    assert (s.status, s.rejection_codes, s.reason) == ("rejected", ("50",), "AAA 50: provider ineligible for inquiries")


def test_no_coverage_status_is_an_error():
    text = (HERE / "hand_other_coverage.271").read_text().replace("EB*1*FAM*30*HM*HAND BRONZE EPO", "EB*L")
    s = summarise(parse_271(text.encode()), date(2026, 3, 20))
    assert (s.status, s.reason) == ("error", "the response states no coverage status (EB01 1-8)")
