"""P(overturn | payer, category, CARC) from recorded appeal outcomes (pure, no I/O).

A hierarchical Beta-binomial model fitted by empirical Bayes, four levels deep:

    global  ->  category  ->  payer x category  ->  payer x category x CARC

Each count is n decided appeals (won, partially won or lost; withdrawn ones decide nothing) of which k
were overturned (won or partially won). The global rate has a uniform Beta(1, 1) prior. A cell at any
deeper level has the prior Beta(s * m, s * (1 - m)) where m is its parent's posterior mean and s the
level's pseudo-count strength, so its posterior mean is (s * m + k) / (s + n): a thin cell stays near
its parent, a cell with plenty of data speaks for itself, and a cell without data has exactly its
parent's mean. The parent's counts include the cell's own, so the prior is centred on the parent's
posterior *without* the cell's outcomes (a, b less the cell's k, n - k): otherwise a cell would count
its data twice and claim twice the certainty it has.

The strength of a level is chosen from the data by the method of moments: across the level's cells
with data, the observed spread of k/n around the parents' means, less the spread binomial noise alone
would give (m(1 - m)/n), estimates the variance tau^2 of the true rates between sibling cells; a Beta
with mean m and strength s has variance m(1 - m)/(s + 1), so s = m(1 - m)/tau^2 - 1. With fewer than
`MIN_CELLS_FOR_MOMENTS` cells it is `DEFAULT_STRENGTH`. Two bounds hold per cell:

- s <= a_parent + b_parent (both without the cell's outcomes): a prior is never more certain than the
  parent's posterior it comes from (so a level whose cells all agree gives each cell its parent's
  posterior, never a narrower one);
- s * m >= 1 and s * (1 - m) >= 1: no prior puts a pole at 0 or 1. By induction every posterior has
  a, b >= 1 (the parent without the cell's outcomes keeps a, b >= 1 too), so it is unimodal and its mean lies inside its equal-tailed credible interval.

The interval is the equal-tailed credible interval of the cell's Beta posterior (parents' uncertainty
is not propagated: the usual empirical-Bayes plug-in).

Seeded by the remittance history (``history_prior.py``): when the client's ledger holds any denial, a
payer x category cell's prior is its history seed instead of its category's posterior (the payer's own
reprocessing record is more specific evidence than other payers' appeals), shown as a `payer_history`
level just above it; its recorded outcomes update it by the same conjugate rule, and the CARC level below
is unchanged. Without any denial in the ledger the hierarchy above is exactly what it was.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from api.denials.human_attention.beta import beta_ppf
from api.denials.human_attention.history_prior import CATEGORY_STRENGTH, HistoryPrior, Seed

LEVELS: tuple[str, ...] = ("global", "category", "payer_category", "payer_category_carc")
#: The level a remittance-history seed is shown as, just above payer_category (``history_prior``).
HISTORY_LEVEL = "payer_history"
GLOBAL_PRIOR: tuple[float, float] = (1.0, 1.0)
DEFAULT_STRENGTH = 20.0
MIN_CELLS_FOR_MOMENTS = 3
CREDIBLE_MASS = 0.95

#: (payer, category, CARC): the most specific cell. Missing category or CARC is "".
CellKey = tuple[str, str, str]


@dataclass(frozen=True)
class Counts:
    n: int  # decided appeals
    k: int  # of which overturned

    def __post_init__(self) -> None:
        if not 0 <= self.k <= self.n:
            raise ValueError("overturn counts need 0 <= k <= n")


@dataclass(frozen=True)
class LevelFit:
    """One level of a cell's estimate: its data, the prior strength it got and its posterior."""

    level: str
    n: int
    k: int
    prior_strength: float | None  # None at the global level (the fixed Beta(1, 1))
    alpha: float
    beta: float

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def interval(self, mass: float = CREDIBLE_MASS) -> tuple[float, float]:
        tail = (1.0 - mass) / 2.0
        return beta_ppf(tail, self.alpha, self.beta), beta_ppf(1.0 - tail, self.alpha, self.beta)


@dataclass(frozen=True)
class Estimate:
    """P(overturn) for one cell: the most specific level's posterior, and every level above it.

    `basis` is the most specific level that holds data for this cell ("global" when no outcome was
    ever recorded); `n` and `k` are that level's counts."""

    levels: tuple[LevelFit, ...]
    seed: Seed | None = None  # the payer's remittance history that seeded the payer x category prior

    @property
    def outcomes(self) -> int:
        """Recorded decisions in the case's payer x category cell."""
        return next((fit.n for fit in self.levels if fit.level == "payer_category"), 0)

    @property
    def posterior(self) -> LevelFit:
        return self.levels[-1]

    @property
    def mean(self) -> float:
        return self.posterior.mean

    def interval(self, mass: float = CREDIBLE_MASS) -> tuple[float, float]:
        return self.posterior.interval(mass)

    @property
    def basis(self) -> LevelFit:
        with_data = [fit for fit in self.levels if fit.n > 0]
        return with_data[-1] if with_data else self.levels[0]


def _parent_without(parent: LevelFit, n: int, k: int) -> tuple[float, float]:
    """The parent's posterior without this cell's own outcomes (the parent's counts include them;
    using them twice would make the cell look twice as certain as its data)."""
    return parent.alpha - k, parent.beta - (n - k)


def _child(level: str, level_strength: float, parent: LevelFit, counts: Counts | None) -> LevelFit:
    n, k = (counts.n, counts.k) if counts is not None else (0, 0)
    a, b = _parent_without(parent, n, k)
    m = a / (a + b)
    s = min(max(level_strength, 1.0 / m, 1.0 / (1.0 - m)), a + b)
    return LevelFit(level, n, k, s, s * m + k, s * (1.0 - m) + n - k)


def _history_level(seed: Seed) -> LevelFit:
    """The seed itself, shown as a level: the history's counts and the capped Beta they give."""
    return LevelFit(HISTORY_LEVEL, seed.n, seed.k, CATEGORY_STRENGTH, seed.alpha, seed.beta)


def _seeded(seed: Seed, counts: Counts | None) -> LevelFit:
    """A payer x category cell whose prior is the history seed, updated by its recorded outcomes
    (the conjugate Beta-binomial update: Beta(a + k, b + n - k))."""
    n, k = (counts.n, counts.k) if counts is not None else (0, 0)
    return LevelFit(LEVELS[2], n, k, seed.strength, seed.alpha + k, seed.beta + n - k)


def moment_strength(cells: list[tuple[int, int, float]]) -> float:
    """A level's pseudo-count strength from its cells' (n, k, parent mean), by the method of moments.
    `math.inf` when the cells spread no more than binomial noise (then each cell's ceiling applies)."""
    used = [(n, k, m) for n, k, m in cells if n > 0]
    if len(used) < MIN_CELLS_FOR_MOMENTS:
        return DEFAULT_STRENGTH
    spread = sum((k / n - m) ** 2 for n, k, m in used) / len(used)
    noise = sum(m * (1.0 - m) / n for n, k, m in used) / len(used)
    between = spread - noise
    if between <= 0.0:
        return math.inf
    variance_scale = sum(m * (1.0 - m) for _, _, m in used) / len(used)
    return max(variance_scale / between - 1.0, 0.0)


@dataclass
class OverturnModel:
    """The fitted hierarchy: posteriors of every cell with data, and each level's strength."""

    strengths: dict[str, float] = field(default_factory=dict)
    fits: dict[tuple[str, ...], LevelFit] = field(default_factory=dict)
    history: HistoryPrior | None = None

    def seed(self, payer: str, category: str) -> Seed | None:
        return self.history.seed(payer, category) if self.history is not None else None

    def estimate(self, payer: str, category: str, carc: str) -> Estimate:
        """The estimate of one cell; a cell (or any ancestor) without data gets its prior. With a
        history seed the payer x category level's prior is the seed (shown as a `payer_history` level
        before it) instead of its category's posterior."""
        keys: tuple[tuple[str, ...], ...] = ((), (category,), (category, payer), (category, payer, carc))
        seed = self.seed(payer, category)
        chain = [self.fits[()]]
        for depth in range(1, len(LEVELS)):
            found = self.fits.get(keys[depth])
            if seed is not None and LEVELS[depth] == LEVELS[2]:
                chain.append(_history_level(seed))
                found = found or _seeded(seed, None)
            if found is None:
                found = _child(LEVELS[depth], self.strengths[LEVELS[depth]], chain[-1], None)
            chain.append(found)
        return Estimate(tuple(chain), seed)


def _level_counts(counts: Mapping[CellKey, Counts]) -> list[dict[tuple[str, ...], Counts]]:
    totals: list[dict[tuple[str, ...], list[int]]] = [defaultdict(lambda: [0, 0]) for _ in LEVELS]
    for (payer, category, carc), c in counts.items():
        for depth, key in enumerate(((), (category,), (category, payer), (category, payer, carc))):
            totals[depth][key][0] += c.n
            totals[depth][key][1] += c.k
    return [{key: Counts(n, k) for key, (n, k) in level.items()} for level in totals]


def _loo_mean(parent: LevelFit, c: Counts) -> float:
    a, b = _parent_without(parent, c.n, c.k)
    return a / (a + b)


def fit(counts: Mapping[CellKey, Counts], history: HistoryPrior | None = None) -> OverturnModel:
    """Fit the hierarchy to the outcome counts of the most specific cells; with a remittance
    `history`, each payer x category prior is its seed (``history_prior``) instead of its category's
    posterior."""
    per_level = _level_counts(counts)
    model = OverturnModel(history=history if history is not None and not history.empty else None)
    top = per_level[0].get((), Counts(0, 0))
    a0, b0 = GLOBAL_PRIOR
    model.fits[()] = LevelFit(LEVELS[0], top.n, top.k, None, a0 + top.k, b0 + top.n - top.k)
    for depth in range(1, len(LEVELS)):
        level = LEVELS[depth]
        cells = sorted(per_level[depth].items())
        strength = moment_strength([(c.n, c.k, _loo_mean(model.fits[key[:-1]], c)) for key, c in cells])
        model.strengths[level] = strength
        for key, c in cells:
            seed = model.seed(key[1], key[0]) if level == LEVELS[2] else None
            model.fits[key] = _seeded(seed, c) if seed is not None else _child(level, strength, model.fits[key[:-1]], c)
    return model
