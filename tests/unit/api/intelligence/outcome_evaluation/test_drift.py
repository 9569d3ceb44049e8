"""The evaluation figures (drift.py) on a hand-made set of new outcomes."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from api.intelligence.outcome_evaluation import drift


def rows(pairs):
    return [drift.Scored(p, won, Decimal("200.00"), Decimal("200.00") if won else Decimal("0")) for p, won in pairs]


def test_ten_outcomes_give_rate_recovery_and_brier_by_hand():
    # 10 rows: p = 0.8 for five (4 won), p = 0.2 for five (1 won)
    pairs = [(0.8, True)] * 4 + [(0.8, False)] + [(0.2, True)] + [(0.2, False)] * 4
    d = drift.drift(rows(pairs))
    assert (d.n, d.successes) == (10, 5)
    z = 1.959963984540054  # Wilson at 5/10: centre 0.5, half z/(1+z^2/10) sqrt(0.025 + z^2/400)
    half = z / (1 + z * z / 10) * math.sqrt(0.25 / 10 + z * z / 400)
    assert d.success_rate.value == 0.5
    assert d.success_rate.low == pytest.approx(0.5 - half) and d.success_rate.high == pytest.approx(0.5 + half)
    assert d.mean_predicted == pytest.approx(0.5)  # (5 x 0.8 + 5 x 0.2) / 10
    assert d.realised_recovery == Decimal("1000.00")  # 5 wins x $200
    assert d.expected_recovery == Decimal("1000.00")  # 5 x 0.8 x 200 + 5 x 0.2 x 200 = 800 + 200
    # Brier: 4 x 0.2^2 + 0.8^2 + 0.8^2 + 4 x 0.2^2 = 0.16 + 0.64 + 0.64 + 0.16 = 1.6 -> / 10 = 0.16
    assert d.brier.value == pytest.approx(0.16) and d.brier.low <= 0.16 <= d.brier.high
    assert sum(b.count for b in d.calibration) == 10


def test_fewer_than_ten_new_outcomes_give_no_figures():
    assert not drift.enough(9) and drift.enough(10)
    with pytest.raises(ValueError, match=r"not enough new outcomes \(9"):
        drift.drift(rows([(0.5, True)] * 9))
