"""The nonparametric bootstrap of an effect over rows (pure, no I/O).

Each replication draws n rows with replacement from the n rows (Efron 1979, "Bootstrap methods: another
look at the jackknife", Ann. Statist. 7:1), expressed as the weights w_i = how often row i was drawn, and
evaluates the effect on them; the 95 % interval is the 2.5th and 97.5th percentiles of the replications
(the percentile interval, Efron & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 13). The draws
come from numpy's ``Generator(PCG64(seed))``: the same seed, rows and replications give the same interval.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.random import PCG64, Generator
from numpy.typing import NDArray

MAX_REPLICATIONS = 2000
MAX_SEED = 2**32 - 1
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Interval:
    estimate: float  # the effect on the history itself (every weight 1)
    low: float
    high: float
    replications: int


def interval(
    n: int,
    effect: Callable[[NDArray[np.float64]], float],
    *,
    replications: int,
    seed: int,
) -> Interval:
    """The point estimate of `effect` over n rows and its 95 % percentile bootstrap interval."""
    if not 1 <= replications <= MAX_REPLICATIONS:
        raise ValueError(f"replications must be between 1 and {MAX_REPLICATIONS}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"the seed must be between 0 and {MAX_SEED}")
    estimate = effect(np.ones(n, dtype=np.float64))
    if n == 0:
        return Interval(estimate, estimate, estimate, replications)
    rng = Generator(PCG64(seed))
    draws = np.empty(replications, dtype=np.float64)
    for i in range(replications):
        weights = np.bincount(rng.integers(0, n, size=n), minlength=n).astype(np.float64)
        draws[i] = effect(weights)
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high), replications)
