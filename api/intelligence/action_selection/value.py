"""Expected value of a recovery action on one case (pure, no I/O).

    EV = P(success) x amount at stake - effort cost,   effort cost = effort hours x cost per hour

(the expected-value decision rule: Raiffa & Schlaifer, *Applied Statistical Decision Theory*, 1961;
for denials, the worklist's expected recovery per hour, ``human_attention.priority``). P(success) is a
Beta(a, b) posterior: its mean a / (a + b) and its equal-tailed 95 % credible interval (Gelman et al.,
*Bayesian Data Analysis*, 3rd ed., 2.4). EV is linear in P, so the interval of EV is the interval of P
mapped through it: [low x amount - cost, high x amount - cost].

Which evidence an action's P rests on depends on its kind:
- appeal, corrected_claim, payer_call: the payer reverses its own denial; the evidence is the payer x
  category posterior of P(overturn) (``human_attention.history_prior`` seeded by the payer's remittance
  history, updated by the client's recorded appeal decisions): the worklist's own number. The platform
  records no outcome per action yet, so every such action gets the same P and their order is their effort.
- rebill_other_payer, patient_billing: another party pays; the platform has no outcome of those yet, so P
  is the uninformed Beta(1, 1) (mean 0.5, interval 0.025 to 0.975) and the sample size 0, said plainly.
- write_off: recovers nothing, for certain (P = 1 of 0 dollars): EV = - its effort cost, the baseline any
  other action must beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

CREDIBLE_MASS = 0.95
UNINFORMED: tuple[float, float] = (1.0, 1.0)
CENT = Decimal("0.01")
Evidence = Literal["payer_category", "none", "certain_nothing"]

_EVIDENCE_OF_KIND: dict[str, Evidence] = {
    "appeal": "payer_category",
    "corrected_claim": "payer_category",
    "payer_call": "payer_category",
    "rebill_other_payer": "none",
    "patient_billing": "none",
    "write_off": "certain_nothing",
}


def evidence_of(kind: str) -> Evidence:
    """Which evidence an action kind's P(success) rests on (an unknown kind: none)."""
    return _EVIDENCE_OF_KIND.get(kind, "none")


@dataclass(frozen=True)
class Probability:
    mean: float
    low: float
    high: float
    sample_size: int  # observations the posterior rests on (0: the prior alone)


def beta_probability(alpha: float, beta: float, sample_size: int, mass: float = CREDIBLE_MASS) -> Probability:
    """Mean and equal-tailed credible interval of Beta(alpha, beta)."""
    if alpha <= 0 or beta <= 0:
        raise ValueError("a Beta distribution needs alpha, beta > 0")
    from scipy.stats import beta as beta_distribution  # imported when used: scipy.stats costs 0.6 s at API start

    tail = (1.0 - mass) / 2.0
    low = float(beta_distribution.ppf(tail, alpha, beta))
    high = float(beta_distribution.ppf(1.0 - tail, alpha, beta))
    return Probability(alpha / (alpha + beta), low, high, sample_size)


CERTAIN = Probability(1.0, 1.0, 1.0, 0)


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Valued:
    key: str
    probability: Probability
    amount: Decimal  # what the action may recover
    effort_cost: Decimal
    expected_value: Decimal
    expected_low: Decimal
    expected_high: Decimal


def value(key: str, p: Probability, amount: Decimal, effort_cost: Decimal) -> Valued:
    """EV = P x amount - cost, with the credible interval of P carried through; to the cent."""
    if amount < 0 or effort_cost < 0:
        raise ValueError("amount and effort cost must be >= 0")

    def ev(prob: float) -> Decimal:
        return money(Decimal(repr(prob)) * amount - effort_cost)

    return Valued(key, p, amount, effort_cost, ev(p.mean), ev(p.low), ev(p.high))


def ranked(items: Sequence[Valued]) -> list[Valued]:
    """Highest expected value first; ties: the cheaper effort, then the key."""
    return sorted(items, key=lambda v: (-v.expected_value, v.effort_cost, v.key))
