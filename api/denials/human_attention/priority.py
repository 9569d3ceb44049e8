"""How the worklist ranks a case (pure, no I/O).

    score = amount at stake x P(overturn) / effort hours x exp(-days left / TAU_DAYS)

The first factors are the expected recovery per hour of a specialist's work; the last is the deadline
discount: a case on its due day counts in full, each further `TAU_DAYS` divide it by e (so a case due
45 days later needs about 2.7x the expected recovery per hour to rank level with it). A case past its
deadline is not ranked (the queue leaves it out; `why` says so).

The stored key is the logarithm with the deadline counted from a fixed epoch instead of today:

    key = ln(amount x P / effort) - (due - EPOCH) / TAU_DAYS,  score(today) = exp(key + (today - EPOCH) / TAU_DAYS)

`today` adds the same constant to every key, so the order the keys give is the order of the scores on
any day: the database keeps one indexed column and the queue is an index scan, without rewriting rows
as days pass.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal

TAU_DAYS = 45.0
EPOCH = date(2000, 1, 1)
#: When a case has no appeal deadline: assume the common payer limit from the remittance (or opening).
ASSUMED_APPEAL_WINDOW_DAYS = 180
#: Below a cent of expected recovery per hour the value is a cent: the logarithm needs a positive number.
MIN_VALUE_PER_HOUR = 0.01

#: Typical specialist hours to work one appeal of each denial category (data: tune it, not the code).
EFFORT_HOURS: dict[str, float] = {
    "eligibility": 0.75,
    "registration": 0.5,
    "authorization": 2.0,
    "coding": 1.0,
    "bundling": 1.5,
    "medical_necessity": 3.0,
    "non_covered": 2.0,
    "timely_filing": 1.5,
    "duplicate": 0.5,
    "missing_information": 0.75,
    "credentialing": 2.5,
    "coordination_of_benefits": 0.75,
    "other": 1.5,
}
DEFAULT_EFFORT_HOURS = 1.5  # a category not in the table (unclassified, or none yet)


def effort_hours(category: str | None) -> float:
    return EFFORT_HOURS.get(category or "", DEFAULT_EFFORT_HOURS)


def deadline(appeal_due_on: date | None, remittance_date: date | None, opened_on: date) -> tuple[date, bool]:
    """The deadline the rank uses and whether it is assumed (the case has no appeal deadline yet)."""
    if appeal_due_on is not None:
        return appeal_due_on, False
    return (remittance_date or opened_on) + timedelta(days=ASSUMED_APPEAL_WINDOW_DAYS), True


def value_per_hour(amount: Decimal, probability: float, category: str | None) -> float:
    return float(amount) * probability / effort_hours(category)


def priority_key(amount: Decimal, probability: float, category: str | None, due: date) -> float:
    value = max(value_per_hour(amount, probability, category), MIN_VALUE_PER_HOUR)
    return math.log(value) - (due - EPOCH).days / TAU_DAYS


def urgency(days_left: int) -> float:
    """The deadline discount: 1 on the due day, 1/e every `TAU_DAYS` before it."""
    return math.exp(-days_left / TAU_DAYS)


def score_on(key: float, today: date) -> float:
    """The score of a stored key on `today` (expected recovery per hour x the deadline discount)."""
    return math.exp(key + (today - EPOCH).days / TAU_DAYS)
