"""The demo's recovery team: works part of the cases the demo's remittances opened, through the real procedures.

Without it a fresh `make up` shows an idle team: no case assigned, no appeal decided, so the analytics built
on recorded work (revenueRecoveryDigitalTwin, revenueOperations, outcomeLearning) have nothing to read. A
seeded draw over the case ids in order picks the cases worked: each is assigned to the demo admin
(`cases.assign`), moved to appeal (`cases.transition`: open -> in_appeal), and most get
the payer's decision (`outcomes.record`), dated a seeded 15-60 days after the denial's remittance (a decision
that would fall after today is still awaited; a remittance dated after today is not worked). Only untouched
cases (open, no owner) are worked, so a second run records nothing new.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_DOWN, Decimal
from typing import Any

#: Share of the cases the team takes on (kept small: each costs two or three procedure calls), and of those, the share whose appeal the payer has decided.
WORKED_SHARE = 0.35
DECIDED_SHARE = 0.75
#: Of the decided appeals: won, partially won, else lost (the synthetic corpus overturns about 35%).
WON_SHARE = 0.30
PARTIAL_SHARE = 0.15
DECISION_DAYS = (15, 60)
PAGE = 500
CENT = Decimal("0.01")

Call = Callable[[str, dict[str, Any]], Any]


@dataclass(frozen=True)
class TeamWork:
    """What one pass of the demo team did."""

    worked: int = 0
    decided: int = 0
    recovered: Decimal = Decimal("0")


@dataclass(frozen=True)
class Plan:
    """The seeded draws for one case (drawn for every case, worked or not, so the plan of a case never
    depends on what happened to the others)."""

    worked: bool
    decided: bool
    decision: str
    share: float
    days: int


def plans(case_ids: list[int], seed: int) -> dict[int, Plan]:
    """The seeded plan of each case, the ids taken in increasing order."""
    rng = random.Random(seed)
    out: dict[int, Plan] = {}
    for case_id in sorted(case_ids):
        worked, decided, pick = rng.random() < WORKED_SHARE, rng.random() < DECIDED_SHARE, rng.random()
        decision = "won" if pick < WON_SHARE else "partially_won" if pick < WON_SHARE + PARTIAL_SHARE else "lost"
        out[case_id] = Plan(worked, decided, decision, rng.uniform(0.3, 0.8), rng.randint(*DECISION_DAYS))
    return out


def _cases(call: Call) -> Iterator[dict[str, Any]]:
    cursor = None
    while True:
        page = call("cases.list", {"limit": PAGE, "cursor": cursor})
        yield from page["items"]
        cursor = page.get("nextCursor")
        if not cursor:
            return


def _amount(decision: str, remaining: Decimal, share: float) -> tuple[str, Decimal]:
    """The decision and its recovered amount (a partial win recovers part of what is still at stake)."""
    if decision == "won":
        return decision, remaining
    partial = (remaining * Decimal(str(share))).quantize(CENT, rounding=ROUND_DOWN)
    if decision == "partially_won" and Decimal("0") < partial < remaining:
        return decision, partial
    return "lost", Decimal("0")


def _denied_on(case: dict[str, Any], today: date) -> date:
    return date.fromisoformat(case["remittanceDate"]) if case.get("remittanceDate") else today


def _decide(call: Call, case: dict[str, Any], plan: Plan, decided_on: date) -> Decimal:
    """Record the payer's decision on a case in appeal; the amount recovered."""
    remaining = Decimal(case["amountAtStake"]) - Decimal(case["recoveredAmount"])
    decision, amount = _amount(plan.decision, remaining, plan.share)
    call(
        "outcomes.record",
        {
            "caseId": case["id"],
            "decision": decision,
            "amountRecovered": f"{amount:.2f}",
            "decidedOn": decided_on.isoformat(),
        },
    )
    return amount


def work(call: Call, *, owner_user_id: int, seed: int, today: date) -> TeamWork:
    """Work the seeded share of the untouched cases (open, no owner); returns what was done."""
    cases = {c["id"]: c for c in _cases(call)}
    worked = decided = 0
    recovered = Decimal("0")
    for case_id, plan in plans(list(cases), seed).items():
        case = cases[case_id]
        untouched = case["state"] == "open" and case["ownerUserId"] is None and not case["onHold"]
        denied_on = _denied_on(case, today)
        # A corpus date after today is a denial not received yet; a decision is never dated after today.
        if not (plan.worked and untouched and denied_on <= today):
            continue
        call("cases.assign", {"id": case_id, "ownerUserId": owner_user_id})
        call("cases.transition", {"id": case_id, "to": "in_appeal"})
        worked += 1
        decided_on = denied_on + timedelta(days=plan.days)
        if plan.decided and decided_on <= today:
            recovered += _decide(call, case, plan, decided_on)
            decided += 1
    return TeamWork(worked=worked, decided=decided, recovered=recovered)
