"""Deadlines from the limits seed, checked against dates computed by hand (see each comment)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.business_calendar import is_business_day
from api.denials.deadlines import rules

D = date


def _due(payer_class, notice=None, service=None):
    facts = rules.CaseFacts(payer_class, notice_date=notice, service_date=service)
    return {s.level: s.deadline.due_on for s in rules.case_deadlines(facts)[1]}


def _later(payer_class, decided, on, indicator=None, limits=rules.RULES):
    found = rules.later_level_deadline(rules.CaseFacts(payer_class, filing_indicator=indicator), decided, on, limits)
    return (
        None if found is None else (found.level, found.deadline.due_on, found.payer_type, found.assumed, found.source)
    )


def test_the_seed_is_loaded_with_the_new_columns():
    redetermination = rules.rule_for("medicare", "redetermination")
    assert redetermination is not None
    assert (redetermination.days, redetermination.receipt_days, redetermination.roll_forward) == (120, 5, True)
    assert redetermination.day_count == "calendar" and not redetermination.is_default
    commercial = rules.rule_for("commercial", "first_level_appeal")
    assert commercial is not None and commercial.is_default and not commercial.roll_forward
    assert rules.appeal_levels("medicare") == (
        "redetermination",
        "reconsideration",
        "alj_hearing",
        "appeals_council_review",
        "judicial_review",
    )


def test_medicare_redetermination_with_five_day_receipt_presumption():
    # remittance 2024-01-02 -> presumed received 2024-01-07 -> +120 days:
    # Jan 7..31 = 24, Feb (leap) 29 -> 53, Mar 31 -> 84, Apr 30 -> 114, +6 = 2024-05-06 (a Monday)
    assert _due("medicare", notice=D(2024, 1, 2))["redetermination"] == D(2024, 5, 6)


def test_medicare_deadline_on_a_saturday_rolls_to_monday():
    # 2024-01-07 -> received 01-12 -> +120 = Saturday 2024-05-11 -> Monday 05-13
    assert _due("medicare", notice=D(2024, 1, 7))["redetermination"] == D(2024, 5, 13)


def test_medicare_deadline_on_memorial_day_rolls_to_tuesday():
    # 2024-01-23 -> received 01-28 -> +120 = Monday 2024-05-27, Memorial Day -> 05-28
    assert _due("medicare", notice=D(2024, 1, 23))["redetermination"] == D(2024, 5, 28)


def test_medicare_deadline_on_the_labor_day_weekend_rolls_past_the_holiday():
    # 2024-04-28 -> received 05-03 -> +120 = Saturday 2024-08-31; Sun; Mon 09-02 Labor Day -> Tue 09-03
    assert _due("medicare", notice=D(2024, 4, 28))["redetermination"] == D(2024, 9, 3)


def test_medicare_timely_filing_across_february_29():
    # service 2023-03-01 + 365 days = 2024-02-29 (the leap day, a Thursday)
    assert _due("medicare", service=D(2023, 3, 1))["timely_filing"] == D(2024, 2, 29)
    # service on the leap day + 365 = 2025-02-28 (a Friday)
    assert _due("medicare", service=D(2024, 2, 29))["timely_filing"] == D(2025, 2, 28)


def test_commercial_default_does_not_roll_off_a_holiday():
    # 2024-01-06 + 180 = Jan 25 left -> 25, Feb 54, Mar 85, Apr 115, May 146, +34 = 2024-07-04
    assert _due("commercial", notice=D(2024, 1, 6))["first_level_appeal"] == D(2024, 7, 4)


def test_commercial_from_a_month_end():
    # 2023-08-31 + 180: Sep 30, Oct 61, Nov 91, Dec 122, Jan 153, +27 = 2024-02-27
    assert _due("commercial", notice=D(2023, 8, 31))["first_level_appeal"] == D(2024, 2, 27)


def test_commercial_timely_filing_ninety_days_ends_on_a_sunday():
    # 2024-01-01 + 90: Jan 30, Feb 59, +31 = 2024-03-31 (Sunday; the default does not roll)
    assert _due("commercial", service=D(2024, 1, 1))["timely_filing"] == D(2024, 3, 31)


def test_medicaid_sixty_days_over_a_non_leap_february():
    # 2024-12-31 + 60: Jan 31, Feb 59, +1 = 2025-03-01 (Saturday, stays)
    assert _due("medicaid", notice=D(2024, 12, 31)) == {"first_level_appeal": D(2025, 3, 1)}


def test_later_medicare_levels_from_each_decision():
    # reconsideration: decision notice 2024-06-10 -> received 06-15 -> +180 = 2024-12-12 (Thursday):
    # Jun 15..30 = 15, Jul 46, Aug 77, Sep 107, Oct 138, Nov 168, +12 = Dec 12
    recon = _later("medicare", "redetermination", D(2024, 6, 10))
    assert recon is not None and recon[:4] == ("reconsideration", D(2024, 12, 12), "medicare", False)
    assert "42 CFR 405.962" in recon[4]
    # ALJ: 2024-10-25 -> received 10-30 -> +60 = Sunday 2024-12-29 -> Monday 12-30
    alj = _later("medicare", "reconsideration", D(2024, 10, 25))
    assert alj is not None and alj[:2] == ("alj_hearing", D(2024, 12, 30)) and "42 CFR 405.1014" in alj[4]
    # Appeals Council: 2024-11-01 -> received 11-06 -> +60 = Sunday 2025-01-05 -> Monday 01-06
    council = _later("medicare", "alj_hearing", D(2024, 11, 1))
    assert council is not None and council[:2] == ("appeals_council_review", D(2025, 1, 6))
    assert "42 CFR 405.1102" in council[4]
    # judicial review: 2025-02-03 -> received 02-08 -> +60: Feb 8..28 = 20, Mar 51, +9 = Wednesday 2025-04-09
    court = _later("medicare", "appeals_council_review", D(2025, 2, 3))
    assert court is not None and court[:2] == ("judicial_review", D(2025, 4, 9)) and "405.1130" in court[4]
    assert _later("medicare", "judicial_review", D(2024, 1, 1)) is None
    assert _later("self_pay", "redetermination", D(2024, 1, 1)) is None


def test_later_levels_follow_the_filing_indicator_not_the_payer_class():
    # CLP06 16 (Medicare Advantage) is class medicare, but MA's reconsideration (42 CFR 422.582) has no
    # later level in the limits: no Medicare reconsideration deadline after it
    assert _later("medicare", "reconsideration", D(2024, 10, 25), indicator="16") is None
    assert _later("medicare", "redetermination", D(2024, 6, 10), indicator="16") is None
    # TRICARE (CH) is other_government, which the old mapping made commercial: its reconsideration
    # (32 CFR 199.10) is its only level in the limits
    assert _later("other_government", "reconsideration", D(2024, 6, 10), indicator="CH") is None
    # Medicare Part B (MB) under any class: Medicare's levels
    recon = _later(None, "redetermination", D(2024, 6, 10), indicator="MB")
    assert recon is not None and recon[:4] == ("reconsideration", D(2024, 12, 12), "medicare", False)


def test_an_unknown_payers_later_level_is_the_shortest_of_the_types_with_that_level_assumed():
    # unknown payer after a "redetermination": only Medicare has a level after it: 180 days, assumed
    recon = _later(None, "redetermination", D(2024, 6, 10))
    assert recon is not None and recon[:4] == ("reconsideration", D(2024, 12, 12), "medicare", True)
    # after a "reconsideration": Medicare's ALJ (MA and TRICARE end there): 60 days, assumed
    alj = _later("other_government", "reconsideration", D(2024, 10, 25))
    assert alj is not None and alj[:4] == ("alj_hearing", D(2024, 12, 30), "medicare", True)


def test_a_clients_rule_for_a_later_level_wins_from_its_effective_date():
    own = rules.LimitRule(
        "medicare",
        "*",
        "reconsideration",
        150,
        "calendar",
        True,
        "receipt_of_redetermination",
        5,
        False,
        10_001,
        source="Client memo 7",
        effective_from=D(2024, 6, 1),
        rule_id=7,
    )
    limits = (*rules.RULES, own)
    # decision 2024-06-10 (after 06-01) -> received 06-15 -> +150: Jun 15, Jul 46, Aug 77, Sep 107, Oct 138,
    # +12 = Tuesday 2024-11-12
    found = _later("medicare", "redetermination", D(2024, 6, 10), limits=limits)
    assert found == ("reconsideration", D(2024, 11, 12), "medicare", False, "Client memo 7")
    # a decision before the rule's effective date: the regulation's 180 days
    before = _later("medicare", "redetermination", D(2024, 5, 10), limits=limits)
    # 2024-05-10 -> received 05-15 -> +180: May 16, Jun 46, Jul 77, Aug 108, Sep 138, Oct 169, +11 =
    # Monday 2024-11-11, Veterans Day -> Tuesday 11-12
    assert before is not None and before[1] == D(2024, 11, 12) and "42 CFR 405.962" in before[4]


def test_payer_types_replace_the_old_class_mapping():
    assert not hasattr(rules, "payer_type_for") and not hasattr(rules, "PAYER_CLASS_TO_TYPE")
    assert rules.payer_type_of("medicare", None).payer_type == "medicare"
    assert rules.payer_type_of("medicaid", None).payer_type == "medicaid"
    # other_government was "commercial" under the old mapping: now unknown unless TRICARE (CH)
    assert rules.payer_type_of("other_government", None) == rules.PayerType(
        "unknown", True, "payer class unknown: the shortest common window is assumed"
    )
    assert rules.payer_type_of(None, None).assumed is True
    assert rules.payer_type_of("self_pay", None).payer_type is None
    assert _due("self_pay", notice=D(2024, 1, 2), service=D(2024, 1, 1)) == {}


def test_missing_dates_give_no_deadline():
    assert _due("medicare") == {}
    assert set(_due("medicare", service=D(2024, 1, 1))) == {"timely_filing"}


BUSINESS = rules.parse_rules(
    "payer_type,plan,level,days,day_count,roll_forward,basis,receipt_days,is_default,note\n"
    "commercial,*,timely_filing,90,calendar,N,date_of_service,0,Y,\n"
    "commercial,*,first_level_appeal,180,calendar,N,date_of_denial,0,Y,\n"
    "commercial,ACME,first_level_appeal,10,business,N,date_of_denial,0,N,contract\n"
)


def test_business_day_rule_for_a_plan():
    # ACME: 10 business days from Friday 2024-06-14, skipping Juneteenth -> 2024-07-01
    acme = rules.CaseFacts("commercial", payer_id="ACME", notice_date=D(2024, 6, 14))
    found = rules.case_deadlines(acme, BUSINESS)[1]
    assert [(s.deadline.rule.plan, s.deadline.due_on) for s in found] == [("ACME", D(2024, 7, 1))]
    # another plan gets the '*' row
    other = rules.case_deadlines(rules.CaseFacts("commercial", payer_id="X", notice_date=D(2024, 6, 14)), BUSINESS)[1]
    assert [(s.deadline.rule.plan, s.deadline.due_on) for s in other] == [("*", D(2024, 12, 11))]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("medicare,*,x,10,weekly,N,date_of_denial,0,N,", "day_count"),
        ("medicare,*,x,0,calendar,N,date_of_denial,0,N,", "days"),
        ("medicare,*,x,ten,calendar,N,date_of_denial,0,N,", "whole numbers"),
        ("medicare,*,x,10,calendar,maybe,date_of_denial,0,N,", "roll_forward"),
    ],
)
def test_bad_rows_are_refused_with_the_line(row, message):
    header = "payer_type,plan,level,days,day_count,roll_forward,basis,receipt_days,is_default,note\n"
    with pytest.raises(rules.LimitsDataError, match=rf"line 2: .*{message}"):
        rules.parse_rules(header + row + "\n")


def test_duplicate_rows_are_refused():
    header = "payer_type,plan,level,days,day_count,roll_forward,basis,receipt_days,is_default,note\n"
    row = "medicare,*,x,10,calendar,N,date_of_denial,0,N,\n"
    with pytest.raises(rules.LimitsDataError, match="line 3: duplicate"):
        rules.parse_rules(header + row + row)


ALL_RULES = [*rules.RULES, *BUSINESS]
dates = st.dates(min_value=D(1990, 1, 1), max_value=D(2090, 12, 31))


@given(st.sampled_from(ALL_RULES), dates)
def test_due_is_never_before_the_basis(rule, basis):
    assert rules.due_date(rule, basis) >= basis


@given(st.sampled_from([r for r in ALL_RULES if r.business_days or r.roll_forward]), dates)
def test_business_and_rolled_deadlines_fall_on_business_days(rule, basis):
    assert is_business_day(rules.due_date(rule, basis))


@given(st.sampled_from(ALL_RULES), dates, dates)
def test_due_is_monotone_in_the_basis(rule, a, b):
    lo, hi = min(a, b), max(a, b)
    assert rules.due_date(rule, lo) <= rules.due_date(rule, hi)


def test_dates_outside_the_calendar_give_no_deadline():
    assert _due("medicare", notice=D(9999, 12, 30), service=D(1, 1, 1)) == {}
    assert _later("medicare", "redetermination", D(9999, 12, 30)) is None
