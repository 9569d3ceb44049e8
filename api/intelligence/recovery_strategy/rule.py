"""The suggested strategy for a payer x denial category from its denial history (pure, no I/O).

The evidence: of the n claims the payer denied in the category over the 12 months read, k were later
overturned (the marts' `is_overturned`, ``fct_payer_denials_monthly``), for D denied dollars in all. The
overturn rate's 95 % Wilson score interval (Wilson 1927, JASA 22:209; recommended over the Wald interval
for small n by Brown, Cai & DasGupta 2001, Statistical Science 16:101) is computed with statsmodels'
``proportion_confint(k, n, alpha=0.05, method="wilson")``.

The rule, deliberately cautious (it uses the interval's LOWER bound, so a thin history does not suggest
appeals on a lucky streak):

    appeal      when  lower bound x (D / n)  >  the first-level appeal's effort hours x cost per hour
    write off   otherwise

i.e. appeal when even a pessimistic expected recovery per denial pays for the work of one appeal. With
no denial in the window (n = 0) there is no suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

APPEAL_KEY = "appeal-level-1"
WRITE_OFF_KEY = "write-off"
CONFIDENCE = 0.95
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Suggestion:
    action_key: str
    denied_claims: int  # n, the sample size
    overturned_claims: int  # k
    overturn_rate: float
    rate_low: float
    rate_high: float
    average_denied_amount: Decimal
    pessimistic_recovery: Decimal  # rate_low x average denied amount
    appeal_effort_cost: Decimal
    rule: str


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of k successes in n trials (n > 0)."""
    from statsmodels.stats.proportion import proportion_confint  # imported when used: 0.9 s at API start

    low, high = proportion_confint(k, n, alpha=1 - CONFIDENCE, method="wilson")
    return max(0.0, float(low)), min(1.0, float(high))


def suggest(k: int, n: int, denied_amount: Decimal, appeal_effort_cost: Decimal) -> Suggestion | None:
    """Appeal or write off, from k overturns of n denials worth `denied_amount`; None when n = 0."""
    if not 0 <= k <= n:
        raise ValueError("overturn counts need 0 <= k <= n")
    if n == 0:
        return None
    low, high = wilson(k, n)
    average = (denied_amount / n).quantize(CENT)
    pessimistic = (Decimal(repr(low)) * denied_amount / n).quantize(CENT)
    appeal = pessimistic > appeal_effort_cost
    verdict = "exceeds" if appeal else "does not exceed"
    rule = (
        f"{k} of {n} denials overturned (95% Wilson interval {low:.1%} to {high:.1%}); the lower bound times the"
        f" average denied amount {average:.2f} is {pessimistic:.2f}, which {verdict} the cost of a first-level"
        f" appeal ({appeal_effort_cost:.2f}): {'appeal' if appeal else 'write off'}"
    )
    return Suggestion(
        APPEAL_KEY if appeal else WRITE_OFF_KEY,
        n,
        k,
        k / n,
        low,
        high,
        average,
        pessimistic,
        appeal_effort_cost,
        rule,
    )
