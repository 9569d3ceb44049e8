"""Evaluation metrics of labelled AI results (pure, no I/O).

Each sample is (predicted label, actual label, confidence in the predicted label).

- accuracy: share of samples with predicted == actual;
- per label (every label seen as predicted or actual, sorted): precision = TP / predicted as the label,
  recall = TP / actually the label, support = actually the label; a 0/0 ratio is 0.0 (scikit-learn's
  `zero_division=0`); macro precision / recall: their unweighted mean over those labels;
- Brier score: mean of (confidence - correct)^2 with correct 1 or 0 (the binary Brier score of the
  confidence as a probability that the prediction is right);
- expected calibration error over 10 equal-width bins of confidence ([0, 0.1), ..., [0.9, 1.0]; 1.0
  falls in the last): sum over non-empty bins of |bin| / n * |accuracy(bin) - mean confidence(bin)|.

No samples: n = 0 and every metric None.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

BINS = 10


@dataclass(frozen=True)
class Sample:
    predicted: str
    actual: str
    confidence: float


@dataclass(frozen=True)
class LabelMetrics:
    label: str
    precision: float
    recall: float
    support: int


@dataclass(frozen=True)
class Metrics:
    n: int
    accuracy: float | None
    macro_precision: float | None
    macro_recall: float | None
    expected_calibration_error: float | None
    brier_score: float | None
    labels: tuple[LabelMetrics, ...]


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def bin_of(confidence: float, bins: int = BINS) -> int:
    return min(int(confidence * bins), bins - 1)


def expected_calibration_error(samples: Sequence[Sample], bins: int = BINS) -> float:
    grouped: dict[int, list[Sample]] = {}
    for s in samples:
        grouped.setdefault(bin_of(s.confidence, bins), []).append(s)
    total = 0.0
    for members in grouped.values():
        accuracy = sum(s.predicted == s.actual for s in members) / len(members)
        confidence = sum(s.confidence for s in members) / len(members)
        total += len(members) / len(samples) * abs(accuracy - confidence)
    return total


def brier_score(samples: Sequence[Sample]) -> float:
    return sum((s.confidence - (1.0 if s.predicted == s.actual else 0.0)) ** 2 for s in samples) / len(samples)


def per_label(samples: Sequence[Sample]) -> tuple[LabelMetrics, ...]:
    predicted = Counter(s.predicted for s in samples)
    actual = Counter(s.actual for s in samples)
    hits = Counter(s.actual for s in samples if s.predicted == s.actual)
    return tuple(
        LabelMetrics(label, _ratio(hits[label], predicted[label]), _ratio(hits[label], actual[label]), actual[label])
        for label in sorted(set(predicted) | set(actual))
    )


def compute(samples: Sequence[Sample]) -> Metrics:
    """Every metric of the module docstring over `samples`."""
    for s in samples:
        if not 0.0 <= s.confidence <= 1.0:
            raise ValueError("confidence must lie in [0, 1]")
    if not samples:
        return Metrics(0, None, None, None, None, None, ())
    labels = per_label(samples)
    return Metrics(
        n=len(samples),
        accuracy=sum(s.predicted == s.actual for s in samples) / len(samples),
        macro_precision=sum(m.precision for m in labels) / len(labels),
        macro_recall=sum(m.recall for m in labels) / len(labels),
        expected_calibration_error=expected_calibration_error(samples),
        brier_score=brier_score(samples),
        labels=labels,
    )
