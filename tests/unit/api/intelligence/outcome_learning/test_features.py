"""The feature rules of outcomeLearning (features.py), by hand."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from api.intelligence.outcome_learning import features


def test_a_case_becomes_the_documented_features():
    case = features.case_features(
        payer="  Acme Health ",
        payer_class=None,
        category=None,
        carc="197",
        rarcs=("N54", "M127"),
        amount_at_stake=Decimal("1250.00"),
        start=date(2026, 3, 1),
        at=date(2026, 4, 15),  # 31 (March) - 1 + 15 = 45 days
        level=2,
    )
    assert (case.payer_key, case.payer_class, case.category, case.carc, case.rarc) == (
        "ACME HEALTH",
        "unknown",
        "(none)",
        "197",
        "N54",
    )
    assert (case.amount, case.age_days_at_action, case.evidence_completeness) == (Decimal("1250.00"), 45, 0.0)
    assert (case.appeal_level, case.action) == (2, "appeal-level-2")


def test_won_and_partially_won_succeed_lost_does_not_and_age_is_never_negative():
    case = features.case_features(
        payer="B",
        payer_class="medicare",
        category="coding",
        carc="16",
        rarcs=(),
        amount_at_stake=Decimal("10"),
        start=date(2026, 5, 2),
        at=date(2026, 5, 1),
        level=1,
    )
    assert case.rarc is None and case.age_days_at_action == 0
    assert [features.outcome(case, date(2026, 5, 1), d).success for d in ("won", "partially_won", "lost")] == [
        True,
        True,
        False,
    ]


@pytest.mark.parametrize("action", ["appeal-level-0", "appeal-level-10", "rebill", "appeal-level-x"])
def test_only_appeal_levels_one_to_nine_are_actions(action):
    with pytest.raises(ValueError, match="unknown action"):
        features.level_of(action)
    assert features.level_of("appeal-level-3") == 3
