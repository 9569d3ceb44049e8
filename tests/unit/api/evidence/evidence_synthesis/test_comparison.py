"""The difference of two pooled estimates: hand-computed, never by calling scipy for the expected values."""

from __future__ import annotations

import math

import pytest

from api.evidence.evidence_synthesis.comparison import difference


def test_difference_by_hand():
    # -0.28 (se² 0.0096) minus -0.20 (se² 0.008) = -0.08; se = sqrt(0.0176) = 0.1326650
    # 95%: -0.08 -+ 1.959964*0.1326650 = -0.08 -+ 0.2600185 -> (-0.3400185, 0.1800185)
    # z = 0.08/0.1326650 = 0.603023; p = erfc(z/sqrt 2) = 0.546494 (table: 2*(1 - Phi(0.603)) = 0.5465)
    d = difference(-0.28, math.sqrt(0.0096), -0.2, math.sqrt(0.008), 1)
    assert d.estimate == pytest.approx(-0.08) and d.standard_error == pytest.approx(0.1326650, abs=5e-8)
    assert d.ci_low == pytest.approx(-0.3400185, abs=5e-7) and d.ci_high == pytest.approx(0.1800185, abs=5e-7)
    assert d.p_value == pytest.approx(0.546494, abs=5e-6) and d.significant is False
    assert d.shared_studies == 1 and "share 1 evidence record" in d.statement and "independent" in d.statement


def test_a_clear_difference():
    # 0.3 - 0.0 with se 0.1 and 0.0: z = 3, p = erfc(3/sqrt 2) = 0.0026998
    d = difference(0.3, 0.1, 0.0, 0.0, 0)
    assert d.p_value == pytest.approx(0.0026998, abs=5e-7) and d.significant is True
    assert "differ" in d.statement and "share no evidence record" in d.statement


def test_zero_standard_errors_and_bad_numbers():
    assert difference(0.1, 0.0, 0.1, 0.0, 0).p_value == 1.0
    assert difference(0.2, 0.0, 0.1, 0.0, 0).p_value == 0.0
    for bad in ((math.nan, 0.1, 0.0, 0.1), (0.1, -0.1, 0.0, 0.1), (0.1, 0.1, math.inf, 0.1)):
        with pytest.raises(ValueError):
            difference(*bad, 0)
