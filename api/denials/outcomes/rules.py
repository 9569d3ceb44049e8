"""What a recordable appeal decision is, and what it does to its case (pure, no I/O)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from api.core.errors import InvalidInput, PreconditionFailed

DECISIONS: tuple[str, ...] = ("won", "partially_won", "lost", "withdrawn")
#: A decision is recorded on a case whose appeal is with the payer or being worked.
RECORDABLE_STATES = frozenset({"in_appeal", "awaiting_payer"})
#: What counts for the overturn rate: decided appeals (n) and those the payer overturned (k). A
#: withdrawn appeal was never decided and counts for neither.
DECIDED = frozenset({"won", "partially_won", "lost"})
OVERTURNED = frozenset({"won", "partially_won"})
# Decision dates are calendar days where the payer is; allow the caller's day to run ahead of UTC.
DATE_SKEW = timedelta(days=1)


def check_state(state: str) -> None:
    if state not in RECORDABLE_STATES:
        raise PreconditionFailed(
            f"The case is '{state}': an appeal decision can be recorded only on a case that is in_appeal or awaiting_payer",
            details={"currentState": state},
        )


def check_amount(decision: str, amount: Decimal, remaining: Decimal) -> None:
    """The amount agrees with the decision: nothing recovered on a loss or a withdrawal; never more than
    is still at stake (the amount at stake less what earlier decisions recovered); a partial win less."""
    if amount < 0:
        raise InvalidInput("Invalid input: 'amountRecovered' must not be negative")
    if decision in ("lost", "withdrawn") and amount != 0:
        raise InvalidInput(f"Invalid input: 'amountRecovered' must be 0 when the decision is '{decision}'")
    if amount > remaining:
        raise InvalidInput(f"Invalid input: 'amountRecovered' exceeds the {remaining:.2f} still at stake on this case")
    if decision == "partially_won" and amount >= remaining:
        raise InvalidInput(
            "Invalid input: 'amountRecovered' of a partial win must be less than what is at stake (else it is 'won')"
        )


def check_decided_on(decided_on: date, today: date) -> None:
    if decided_on > today + DATE_SKEW:
        raise InvalidInput("Invalid input: 'decidedOn' must not be in the future")


def case_state_after(decision: str, state: str) -> str:
    """Won, partially won and lost move the case to that state; a withdrawn appeal puts the case back
    to work (in_appeal), where the specialist appeals again or writes it off."""
    return "in_appeal" if decision == "withdrawn" else decision
