"""The bucket rule of denialsByEligibility, on hand-made check histories."""

from __future__ import annotations

from datetime import date

from api.denials.eligibility.buckets import BUCKETS, CheckFact, Verdict, counts, verdict

SERVICE = date(2026, 3, 20)


def test_no_check():
    assert verdict(SERVICE, []) == Verdict("no_check", None)


def test_latest_check_on_or_before_the_service_date_decides():
    early_active = CheckFact(1, "active", date(2026, 1, 5))
    late_inactive = CheckFact(2, "inactive", date(2026, 3, 20))  # the day of service counts as in time
    assert verdict(SERVICE, [early_active, late_inactive]) == Verdict("checked_inactive", late_inactive)
    assert verdict(SERVICE, [early_active]) == Verdict("checked_active", early_active)


def test_not_found_and_rejected_are_not_confirmed_coverage():
    for status in ("not_found", "rejected"):
        fact = CheckFact(3, status, date(2026, 3, 1))
        assert verdict(SERVICE, [fact]).bucket == "checked_inactive"


def test_only_after_the_service():
    a, b = CheckFact(4, "active", date(2026, 4, 2)), CheckFact(5, "inactive", date(2026, 3, 21))
    assert verdict(SERVICE, [a, b]) == Verdict("checked_after_service", b)  # the earliest after


def test_error_checks_count_as_none():
    assert verdict(SERVICE, [CheckFact(6, "error", date(2026, 3, 1))]) == Verdict("no_check", None)
    before_error = [CheckFact(6, "error", date(2026, 3, 19)), CheckFact(7, "active", date(2026, 3, 1))]
    assert verdict(SERVICE, before_error).bucket == "checked_active"


def test_same_day_ties_go_to_the_later_check():
    first, second = CheckFact(8, "inactive", date(2026, 3, 1)), CheckFact(9, "active", date(2026, 3, 1))
    assert verdict(SERVICE, [second, first]).check == second


def test_unknown_service_date():
    fact = CheckFact(10, "active", date(2026, 3, 1))
    assert verdict(None, [fact]) == Verdict("service_date_unknown", fact)
    assert verdict(None, []) == Verdict("service_date_unknown", None)


def test_counts_hold_every_bucket():
    found = counts([Verdict("no_check", None), Verdict("no_check", None), Verdict("checked_active", None)])
    assert found == {
        "no_check": 2,
        "checked_active": 1,
        "checked_inactive": 0,
        "checked_after_service": 0,
        "service_date_unknown": 0,
    }
    assert tuple(found) == BUCKETS
