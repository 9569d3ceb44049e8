"""P(overturn)'s prior from the payer's own remittance history (pure, no I/O).

Before any appeal outcome is recorded, the ledger already says how often each payer reverses its own
denials: among the claim x payer pairs whose first decision denied money, those a later decision of the
same payer no longer denies (``history.overturn_history`` counts them per payer x denial category, as
the marts count `is_overturned`). That record seeds the
Beta prior of each payer x category cell; recorded appeal outcomes then update it (``estimate.fit``).

The model is the Beta-binomial conjugate pair (Gelman et al., *Bayesian Data Analysis*, 3rd ed.,
section 2.4; the same update ``estimate.py`` uses): a Beta(a, b) prior on the overturn rate and k
overturns in n denials give the posterior Beta(a + k, b + n - k), with mean (a + k) / (a + b + n). Here
it is applied three times, each level's posterior mean becoming the next level's prior mean:

    client:            Beta(1, 1) + the client's K of N                 -> mean m_c = (1 + K) / (2 + N)
    payer:             Beta(S_p m_c, S_p (1 - m_c)) + the payer's K_p of N_p     -> mean m_p
    payer x category:  Beta(S_c m_p, S_c (1 - m_p)) + the cell's k of n          -> the seed

so a payer with few denials stays near the client's rate and a thin category near its payer's rate
(shrinkage); with plenty of history a cell speaks for itself. The strengths are pseudo-counts, chosen
(not fitted: a client's first upload has too few payers for a moment estimate) as:

- ``PAYER_STRENGTH`` = ``CATEGORY_STRENGTH`` = 10: a payer's (or a category's) own record counts as
  much as the level above it once it holds ten denials.
- ``MAX_SEED_STRENGTH`` = 20: the seed's a + b is scaled down to at most 20 (its mean kept). The
  remittance history is indirect evidence (a payer's reprocessing, whether or not anyone appealed), so
  it may not outweigh the hospital's own recorded appeal decisions: after 20 of them in a cell they
  count at least as much as the whole history.

A parent's counts include the cell's own (the usual shrink-to-the-group-mean estimator): the mean leans
slightly more to the cell's data, never its strength (a + b is the pseudo-count plus the cell's n).
Every seed has a, b > 0 and a mean in (0, 1); more overturns of the same denials never lower it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

CLIENT_PRIOR: tuple[float, float] = (1.0, 1.0)
PAYER_STRENGTH = 10.0
CATEGORY_STRENGTH = 10.0
MAX_SEED_STRENGTH = 20.0

#: (payer, category): a history cell. The payer is matched without case; a missing category is "".
HistoryKey = tuple[str, str]


def posterior(prior_mean: float, strength: float, k: int, n: int) -> tuple[float, float]:
    """Beta(strength x mean, strength x (1 - mean)) updated by k overturns of n denials (conjugate)."""
    if not 0 <= k <= n:
        raise ValueError("overturn counts need 0 <= k <= n")
    return strength * prior_mean + k, strength * (1.0 - prior_mean) + (n - k)


def _mean(ab: tuple[float, float]) -> float:
    return ab[0] / (ab[0] + ab[1])


def capped(alpha: float, beta: float, cap: float = MAX_SEED_STRENGTH) -> tuple[float, float]:
    """The same mean with a + b at most `cap`."""
    total = alpha + beta
    if total <= cap:
        return alpha, beta
    return alpha * cap / total, beta * cap / total


@dataclass(frozen=True)
class Seed:
    """The prior of one payer x category cell, with the history it came from."""

    payer: str
    category: str
    n: int  # the cell's denials in the history
    k: int  # of which a later decision of the payer no longer denied
    payer_n: int
    payer_k: int
    client_n: int
    client_k: int
    alpha: float  # after the cap
    beta: float

    @property
    def strength(self) -> float:
        return self.alpha + self.beta

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def describe(self) -> str:
        """The evidence in words (payer names are not PHI; no claim is named)."""
        return (
            f"payer history: {self.k} overturns of {self.n} denials for {self.payer} x"
            f" {self.category or 'unclassified'} ({self.payer_k} of {self.payer_n} for the payer,"
            f" {self.client_k} of {self.client_n} for the client)"
        )


class HistoryPrior:
    """The seeds of every payer x category cell from the history counts (payer, category) -> (n, k)."""

    def __init__(self, counts: Mapping[HistoryKey, tuple[int, int]]) -> None:
        self._cells: dict[HistoryKey, tuple[int, int]] = {}
        self._payers: dict[str, tuple[int, int]] = {}
        self._names: dict[str, str] = {}
        client_n = client_k = 0
        for (payer, category), (n, k) in counts.items():
            if not 0 <= k <= n:
                raise ValueError("overturn counts need 0 <= k <= n")
            name = payer.strip()
            key = (name.upper(), category or "")
            old = self._cells.get(key, (0, 0))
            self._cells[key] = (old[0] + n, old[1] + k)
            pn, pk = self._payers.get(key[0], (0, 0))
            self._payers[key[0]] = (pn + n, pk + k)
            self._names.setdefault(key[0], name)
            client_n, client_k = client_n + n, client_k + k
        self.client_n, self.client_k = client_n, client_k

    @property
    def empty(self) -> bool:
        """No denial in the history: nothing to seed (the outcome model's own priors apply)."""
        return self.client_n == 0

    def seed(self, payer: str, category: str | None) -> Seed | None:
        """The cell's prior, or None when the client's history holds no denial at all."""
        if self.empty:
            return None
        upper = payer.strip().upper()
        category = category or ""
        a0, b0 = CLIENT_PRIOR
        client_mean = (a0 + self.client_k) / (a0 + b0 + self.client_n)
        payer_n, payer_k = self._payers.get(upper, (0, 0))
        payer_mean = _mean(posterior(client_mean, PAYER_STRENGTH, payer_k, payer_n))
        n, k = self._cells.get((upper, category), (0, 0))
        alpha, beta = capped(*posterior(payer_mean, CATEGORY_STRENGTH, k, n))
        name = self._names.get(upper, payer.strip())
        return Seed(name, category, n, k, payer_n, payer_k, self.client_n, self.client_k, alpha, beta)
