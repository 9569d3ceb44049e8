"""Evaluation metrics against numbers computed by hand."""

from __future__ import annotations

import pytest

from api.automation.ai_platform.metrics import LabelMetrics, Sample, bin_of, compute

# predicted, actual, confidence
SAMPLES = [
    Sample("a", "a", 0.9),  # right, bin 9
    Sample("a", "b", 0.8),  # wrong, bin 8
    Sample("b", "b", 0.6),  # right, bin 6
    Sample("b", "b", 0.65),  # right, bin 6
    Sample("c", "a", 0.3),  # wrong, bin 3
]


def test_hand_computed_metrics():
    m = compute(SAMPLES)
    assert m.n == 5
    assert m.accuracy == pytest.approx(3 / 5)
    # a: predicted 2 (1 right), actually a 2 -> P 1/2, R 1/2; b: predicted 2 (2 right), actually b 3
    # -> P 1, R 2/3; c: predicted 1 (0 right), actually c 0 -> P 0, R 0/0 = 0
    assert m.labels == (
        LabelMetrics("a", 0.5, 0.5, 2),
        LabelMetrics("b", 1.0, 2 / 3, 3),
        LabelMetrics("c", 0.0, 0.0, 0),
    )
    assert m.macro_precision == pytest.approx(1.5 / 3)
    assert m.macro_recall == pytest.approx((0.5 + 2 / 3) / 3)
    # Brier: (0.9-1)^2 + (0.8-0)^2 + (0.6-1)^2 + (0.65-1)^2 + (0.3-0)^2 = 0.01+0.64+0.16+0.1225+0.09
    assert m.brier_score == pytest.approx(1.0225 / 5)
    # ECE: bin 9 |1-0.9|=0.1 (1/5); bin 8 |0-0.8| (1/5); bin 6 |1-0.625|=0.375 (2/5); bin 3 |0-0.3| (1/5)
    assert m.expected_calibration_error == pytest.approx(0.1 / 5 + 0.8 / 5 + 2 * 0.375 / 5 + 0.3 / 5)


def test_perfectly_calibrated_and_no_samples():
    perfect = [Sample("x", "x", 1.0), Sample("y", "y", 1.0)]
    m = compute(perfect)
    assert (m.accuracy, m.brier_score, m.expected_calibration_error) == (1.0, 0.0, 0.0)
    assert (m.macro_precision, m.macro_recall) == (1.0, 1.0)
    empty = compute([])
    assert empty.n == 0 and empty.accuracy is None and empty.brier_score is None and empty.labels == ()


def test_bins_are_equal_width_and_one_falls_in_the_last():
    assert [bin_of(c) for c in (0.0, 0.09999, 0.1, 0.55, 0.9, 0.99, 1.0)] == [0, 0, 1, 5, 9, 9, 9]


def test_confidence_out_of_range_is_an_error():
    with pytest.raises(ValueError):
        compute([Sample("a", "a", 1.5)])
