"""What makes a payer interaction acceptable (pure, no I/O)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import get_args

from api.core.errors import InvalidInput
from api.denials.payer_interactions.vocabulary import Outcome

CHANNELS: tuple[str, ...] = ("phone", "portal", "fax", "mail", "email")
DIRECTIONS: tuple[str, ...] = ("outbound", "inbound")
OUTCOMES: tuple[str, ...] = get_args(Outcome)  # the published vocabulary, one list
# Clocks differ: a call logged a moment "in the future" by the caller's clock is not an error.
CLOCK_SKEW = timedelta(minutes=5)


def check_when(occurred_at: datetime, next_step_on: date | None, now: datetime) -> None:
    """An interaction has happened (not in the future) and its next step is not before it."""
    if occurred_at > now + CLOCK_SKEW:
        raise InvalidInput("Invalid input: 'occurredAt' must not be in the future")
    if next_step_on is not None and next_step_on < occurred_at.date():
        raise InvalidInput("Invalid input: 'nextStepOn' must not be before the day of the interaction")


def check_next_step(next_step: str | None, next_step_on: date | None) -> None:
    """A next-step date belongs to a next step."""
    if next_step_on is not None and not next_step:
        raise InvalidInput("Invalid input: 'nextStep' is required when 'nextStepOn' is given")
