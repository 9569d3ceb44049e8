"""How a trained model's predictions held up on outcomes it never saw (pure, no I/O).

For the new outcomes (decided after training, see ``service``): the realised success rate with its Wilson
(1927) 95% interval against the mean predicted probability; realised recovery against the expected one
(sum of p x amount at stake); the Brier score (Brier 1950) on them with a 95% percentile bootstrap interval
(Efron & Tibshirani 1993; the model core's resamples and seed) against the held-out Brier stored at
training; and calibration by decile of predicted probability. Below ``MIN_NEW_OUTCOMES`` nothing is
computed: a rate of five appeals says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from api.intelligence.outcome_learning import model

MIN_NEW_OUTCOMES = 10


@dataclass(frozen=True)
class Scored:
    """One new outcome: what was predicted, what happened, and the money."""

    probability: float
    success: bool
    amount_at_stake: Decimal
    amount_recovered: Decimal


@dataclass(frozen=True)
class Drift:
    n: int
    successes: int
    success_rate: model.Estimate  # Wilson interval
    mean_predicted: float
    realised_recovery: Decimal
    expected_recovery: Decimal  # sum p x amount at stake, to the cent
    brier: model.Estimate  # bootstrap interval
    calibration: tuple[model.CalibrationBin, ...]


def enough(n: int) -> bool:
    return n >= MIN_NEW_OUTCOMES


def drift(rows: Sequence[Scored]) -> Drift:
    """The figures above; ValueError below ``MIN_NEW_OUTCOMES`` rows."""
    n = len(rows)
    if not enough(n):
        raise ValueError(f"not enough new outcomes ({n}; at least {MIN_NEW_OUTCOMES} needed)")
    from statsmodels.stats.proportion import proportion_confint  # imported when used: 0.9 s at API start

    y = np.array([int(r.success) for r in rows], dtype=np.int64)
    p = np.array([r.probability for r in rows], dtype=np.float64)
    k = int(y.sum())
    low, high = proportion_confint(k, n, alpha=1 - model.CONFIDENCE, method="wilson")
    rate = k / n
    row_brier = (p - y) ** 2
    # model._resamples / _percentile_interval: the same bootstrap as the held-out scores it is compared to
    briers = [float(row_brier[index].mean()) for index in model._resamples(n)]
    brier_low, brier_high = model._percentile_interval(briers)
    calibration, _ = model._calibration(y, p)
    expected = sum((Decimal(repr(r.probability)) * r.amount_at_stake for r in rows), Decimal("0"))
    return Drift(
        n=n,
        successes=k,
        success_rate=model.Estimate(rate, min(float(low), rate), max(float(high), rate), n),
        mean_predicted=float(p.mean()),
        realised_recovery=sum((r.amount_recovered for r in rows), Decimal("0")),
        expected_recovery=expected.quantize(Decimal("0.01")),
        brier=model.Estimate(float(row_brier.mean()), brier_low, brier_high, n),
        calibration=calibration,
    )
