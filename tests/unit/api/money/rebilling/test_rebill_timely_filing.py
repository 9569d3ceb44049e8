"""Timely filing of rebills: the limit from the seed and the refusal past it."""

from __future__ import annotations

from datetime import date

import pytest

from api.core.errors import PreconditionFailed
from api.denials.deadlines import rules
from api.money.rebilling import timely_filing
from api.money.rebilling.lifecycle import REBILL

D = date


def _limit(payer_class, service, indicator=None, limits=rules.RULES):
    return timely_filing.limit_for(
        rules.CaseFacts(payer_class, filing_indicator=indicator, service_date=service), limits
    )


def test_commercial_limit_ninety_days_from_service():
    # 2024-01-01 + 90 = 2024-03-31
    limit = _limit("commercial", D(2024, 1, 1))
    assert limit == timely_filing.FilingLimit(D(2024, 3, 31), 90, "payer_appeal_limits/commercial/*/timely_filing")


def test_medicare_limit_rolls_off_a_weekend():
    # 2023-06-04 + 365 = Monday 2024-06-03 (the leap day is inside the year)
    assert _limit("medicare", D(2023, 6, 4)).due_on == D(2024, 6, 3)  # type: ignore[union-attr]
    # 2023-03-04 + 365 = Sunday 2024-03-03 (the leap day is inside) -> Monday 2024-03-04
    assert _limit("medicare", D(2023, 3, 4)).due_on == D(2024, 3, 4)  # type: ignore[union-attr]


def test_self_pay_has_no_limit():
    assert _limit("self_pay", D(2024, 1, 1)) is None
    timely_filing.check(None, D(2030, 1, 1), None)


def test_the_filing_indicator_chooses_the_payer_type_like_a_cases_deadlines():
    # Medicare Advantage (CLP06 16, class medicare): the MA contract default of 365 days, not rolled:
    # 2023-03-04 + 365 = Sunday 2024-03-03 stays (Original Medicare would roll to Monday 03-04)
    ma = _limit("medicare", D(2023, 3, 4), indicator="16")
    assert ma == timely_filing.FilingLimit(D(2024, 3, 3), 365, "payer_appeal_limits/medicare_advantage/*/timely_filing")
    # TRICARE (CH, class other_government, which the old mapping made commercial's 90 days): one year,
    # 32 CFR 199.7(d): 2024-01-01 + 365 = 2024-12-31 (2024 is a leap year)
    tricare = _limit("other_government", D(2024, 1, 1), indicator="CH")
    assert tricare == timely_filing.FilingLimit(D(2024, 12, 31), 365, "payer_appeal_limits/tricare/*/timely_filing")
    # an unknown payer: the shortest common window (commercial's 90 days), as for a case
    assert _limit(None, D(2024, 1, 1)).due_on == D(2024, 3, 31)  # type: ignore[union-attr]


def test_a_clients_timely_filing_rule_wins_from_its_effective_date():
    own = rules.LimitRule(
        "commercial",
        "*",
        "timely_filing",
        120,
        "calendar",
        False,
        "date_of_service",
        0,
        False,
        10_001,
        source="Contract 12",
        effective_from=D(2024, 1, 1),
        rule_id=12,
    )
    limits = (*rules.RULES, own)
    # service 2024-01-01 (on the effective date) + 120: Jan 30, Feb 59, Mar 90, Apr 120 = 2024-04-30
    assert _limit("commercial", D(2024, 1, 1), limits=limits) == timely_filing.FilingLimit(
        D(2024, 4, 30), 120, "payer_rules/12"
    )
    # service 2023-12-31, before it: the default 90 days = 2024-03-30
    assert _limit("commercial", D(2023, 12, 31), limits=limits).due_on == D(2024, 3, 30)  # type: ignore[union-attr]


def test_check_on_the_last_day_passes_and_the_day_after_fails():
    limit = timely_filing.FilingLimit(D(2024, 3, 31), 90, "r")
    timely_filing.check(limit, D(2024, 3, 31), None)
    with pytest.raises(PreconditionFailed, match=r"90 days .* 2024-03-31") as raised:
        timely_filing.check(limit, D(2024, 4, 1), None)
    assert raised.value.details == {"limitDays": 90, "dueOn": "2024-03-31", "rule": "r"}
    timely_filing.check(limit, D(2024, 4, 1), "payer granted an extension")


def test_rebill_lifecycle_moves():
    assert REBILL.allowed("draft") == {"ready"}
    assert REBILL.allowed("ready") == {"submitted", "draft"}
    assert REBILL.allowed("submitted") == {"accepted", "rejected"}
    assert REBILL.allowed("accepted") == frozenset()
