"""The demo team's seeded plan and amounts (launcher/demo_team.py)."""

from __future__ import annotations

from decimal import Decimal

from launcher import demo_team


def test_the_plan_of_a_case_is_seeded_and_independent_of_the_order_given() -> None:
    ids = list(range(1, 200))
    assert demo_team.plans(ids, 7) == demo_team.plans(list(reversed(ids)), 7)
    assert demo_team.plans(ids, 7) != demo_team.plans(ids, 8)
    days = {p.days for p in demo_team.plans(ids, 7).values()}
    assert min(days) >= 15 and max(days) <= 60


def test_amounts_never_exceed_what_is_at_stake() -> None:
    assert demo_team._amount("won", Decimal("120.00"), 0.5) == ("won", Decimal("120.00"))
    assert demo_team._amount("partially_won", Decimal("120.00"), 0.5) == ("partially_won", Decimal("60.00"))
    # a partial win of a cent cannot be less than what is at stake and more than nothing: recorded lost
    assert demo_team._amount("partially_won", Decimal("0.01"), 0.5) == ("lost", Decimal("0"))
    assert demo_team._amount("lost", Decimal("120.00"), 0.5) == ("lost", Decimal("0"))
