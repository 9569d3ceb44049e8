"""Deadlines from the limits seed, checked against dates computed by hand (see each comment)."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.denials.deadlines import rules
from api.denials.deadlines.business_calendar import is_business_day

D = date


def _due(payer_class, notice=None, service=None):
    return {d.level: d.due_on for d in rules.initial_deadlines(payer_class, notice_date=notice, service_date=service)}


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
    # reconsideration: decision notice 2024-06-10 -> received 06-15 -> +180 = 2024-12-12 (Thursday)
    recon = rules.later_level_deadline("medicare", "redetermination", D(2024, 6, 10))
    assert recon is not None and (recon.level, recon.due_on) == ("reconsideration", D(2024, 12, 12))
    # ALJ: 2024-10-25 -> received 10-30 -> +60 = Sunday 2024-12-29 -> Monday 12-30
    alj = rules.later_level_deadline("medicare", "reconsideration", D(2024, 10, 25))
    assert alj is not None and (alj.level, alj.due_on) == ("alj_hearing", D(2024, 12, 30))
    assert rules.later_level_deadline("medicare", "judicial_review", D(2024, 1, 1)) is None
    assert rules.later_level_deadline("self_pay", "redetermination", D(2024, 1, 1)) is None


def test_payer_class_mapping():
    assert rules.payer_type_for("medicare") == "medicare"
    assert rules.payer_type_for("medicaid") == "medicaid"
    assert rules.payer_type_for("other_government") == "commercial"
    assert rules.payer_type_for(None) == "commercial"
    assert rules.payer_type_for("something_new") == "commercial"
    assert rules.payer_type_for("self_pay") is None
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
    found = rules.initial_deadlines(
        "commercial", notice_date=D(2024, 6, 14), service_date=None, plan="ACME", rules=BUSINESS
    )
    assert [(d.rule.plan, d.due_on) for d in found] == [("ACME", D(2024, 7, 1))]
    # another plan gets the '*' row
    other = rules.initial_deadlines(
        "commercial", notice_date=D(2024, 6, 14), service_date=None, plan="X", rules=BUSINESS
    )
    assert [(d.rule.plan, d.due_on) for d in other] == [("*", D(2024, 12, 11))]


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
    assert rules.later_level_deadline("medicare", "redetermination", D(9999, 12, 30)) is None
