"""A recovery process with known parameters, written independently of the digital twin (imports none of it).

Its own event loop: denials arrive per payer x category as a Poisson process (exponential gaps); one shared
first-come-first-served queue; each arrival, in order, takes the specialist free the earliest: it starts when
that specialist is free (or on arrival); if that start is after its appeal deadline nobody ever works it (lost,
no decision); else the specialist works it for an exponential time and the payer decides it (won with the
category's probability, recovering the whole amount). Records are plain dicts of calendar dates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any


@dataclass(frozen=True)
class Truth:
    rates: dict[tuple[str, str], float] = field(
        default_factory=lambda: {
            ("ACME", "auth"): 2.0,
            ("ACME", "coding"): 1.5,
            ("ACME", "eligibility"): 1.0,
            ("BETA", "auth"): 1.0,
            ("BETA", "coding"): 2.5,
            ("BETA", "eligibility"): 1.0,
        }
    )  # cases a week
    success: dict[str, float] = field(default_factory=lambda: {"auth": 0.35, "coding": 0.6, "eligibility": 0.8})
    specialists: int = 3
    work_days: float = 2.0  # mean, exponential
    deadline_days: dict[str, int] = field(default_factory=lambda: {"ACME": 30, "BETA": 45})
    amount_median: float = 900.0


def generate(truth: Truth, start: date, days: int, seed: int) -> list[dict[str, Any]]:
    """Every case opened in ``days`` days from ``start``, with what happened to it (as of the end)."""
    rnd = random.Random(seed)
    arrivals: list[tuple[float, str, str]] = []
    for (payer, category), rate in sorted(truth.rates.items()):
        t = rnd.expovariate(rate / 7)
        while t < days:
            arrivals.append((t, payer, category))
            t += rnd.expovariate(rate / 7)
    arrivals.sort()
    free_at = [0.0] * truth.specialists
    records: list[dict[str, Any]] = []
    for t, payer, category in arrivals:
        due = t + truth.deadline_days[payer]
        amount = round(truth.amount_median * rnd.lognormvariate(0, 0.5), 2)
        who = min(range(truth.specialists), key=lambda i: free_at[i])
        begin = max(t, free_at[who])
        record: dict[str, Any] = {
            "opened_on": start + timedelta(days=int(t)),
            "payer": payer,
            "category": category,
            "amount": amount,
            "due_on": start + timedelta(days=int(due)),
            "owner": None,
            "decided_on": None,
            "decision": None,
            "recovered": 0.0,
        }
        work = rnd.expovariate(1 / truth.work_days)
        won = rnd.random() < truth.success[category]
        if begin <= due:
            free_at[who] = begin + work
            if free_at[who] < days:
                record.update(
                    owner=who + 1,
                    decided_on=start + timedelta(days=int(free_at[who])),
                    decision="won" if won else "lost",
                    recovered=amount if won else 0.0,
                )
            else:
                record["owner"] = who + 1  # still being worked at the end
        records.append(record)
    return records
