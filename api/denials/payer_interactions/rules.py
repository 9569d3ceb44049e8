"""What makes a payer interaction acceptable (pure, no I/O)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import get_args

from api.core.errors import InvalidInput
from api.denials.payer_interactions.vocabulary import Outcome
from api.rpc.text import multi_line, single_line

CHANNELS: tuple[str, ...] = ("phone", "portal", "fax", "mail", "email")
DIRECTIONS: tuple[str, ...] = ("outbound", "inbound")
OUTCOMES: tuple[str, ...] = get_args(Outcome)  # the published vocabulary, one list
#: The longest text of each field (the wire input `LogInteractionIn` declares these bounds).
MAX_PAYER = 200
MAX_CLAIM_KEY = 80
MAX_REPRESENTATIVE = 200
MAX_REFERENCE = 80
MAX_SUMMARY = 10_000
MAX_NEXT_STEP = 500
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


def check_text(field: str, value: str | None, limit: int, *, one_line: bool) -> None:
    """A text field holds 1..`limit` characters and no control characters (a one-line field no line
    breaks either): what the wire input refuses, refused for a caller that is not the wire (the voice
    agent's phone calls) as INVALID_INPUT naming the field."""
    if value is None:
        return
    if not 1 <= len(value) <= limit:
        raise InvalidInput(f"Invalid input: '{field}' must hold 1 to {limit} characters")
    try:
        (single_line if one_line else multi_line)(value)
    except ValueError as exc:
        raise InvalidInput(f"Invalid input: '{field}' {exc}") from None


def check_vocabulary(channel: str, direction: str, outcome: str) -> None:
    """Channel, direction and outcome are the published ones."""
    for field, value, known in (
        ("channel", channel, CHANNELS),
        ("direction", direction, DIRECTIONS),
        ("outcome", outcome, OUTCOMES),
    ):
        if value not in known:
            raise InvalidInput(f"Invalid input: '{field}' is not one of {', '.join(known)}")
