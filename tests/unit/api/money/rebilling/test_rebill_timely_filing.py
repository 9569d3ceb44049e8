"""Timely filing of rebills: the limit from the seed and the refusal past it."""

from __future__ import annotations

from datetime import date

import pytest

from api.core.errors import PreconditionFailed
from api.money.rebilling import timely_filing
from api.money.rebilling.lifecycle import REBILL

D = date


def test_commercial_limit_ninety_days_from_service():
    # 2024-01-01 + 90 = 2024-03-31
    limit = timely_filing.limit_for("commercial", D(2024, 1, 1))
    assert limit == timely_filing.FilingLimit(D(2024, 3, 31), 90, "payer_appeal_limits/commercial/*/timely_filing")


def test_medicare_limit_rolls_off_a_weekend():
    # 2023-06-04 + 365 = Monday 2024-06-03 (the leap day is inside the year)
    assert timely_filing.limit_for("medicare", D(2023, 6, 4)).due_on == D(2024, 6, 3)  # type: ignore[union-attr]
    # 2023-03-04 + 365 = Sunday 2024-03-03 (the leap day is inside) -> Monday 2024-03-04
    assert timely_filing.limit_for("medicare", D(2023, 3, 4)).due_on == D(2024, 3, 4)  # type: ignore[union-attr]


def test_self_pay_has_no_limit():
    assert timely_filing.limit_for("self_pay", D(2024, 1, 1)) is None
    timely_filing.check(None, D(2030, 1, 1), None)


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
