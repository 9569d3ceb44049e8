"""Which notifications exist, who gets them and what they say (pure, no I/O).

Subscriptions are opt-out: a user gets every kind on every channel unless a subscription row turns
it off. Titles are built here from ids, dates and counts only, so no PHI can reach one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta

KINDS: tuple[str, ...] = (
    "deadline_approaching",
    "decision_arrived",
    "assigned",
    "mention",
    "escalated",
    "message_status",
)
CHANNELS: tuple[str, ...] = ("in_app",)
DEFAULT_ENABLED = True
MAX_HORIZON_DAYS = 365


def is_enabled(subscriptions: Mapping[tuple[str, str], bool], kind: str, channel: str = "in_app") -> bool:
    """Whether `kind` on `channel` reaches the user, given their (kind, channel) -> enabled rows."""
    if kind not in KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    if channel not in CHANNELS:
        raise ValueError(f"unknown notification channel {channel!r}")
    return subscriptions.get((kind, channel), DEFAULT_ENABLED)


def due_within(due_on: date, today: date, horizon_days: int) -> bool:
    """A deadline is approaching from `horizon_days` before it up to the day itself (not once past)."""
    if horizon_days < 0:
        raise ValueError("horizon_days must not be negative")
    return today <= due_on <= today + timedelta(days=horizon_days)


def deadline_key(case_id: int, due_on: date) -> str:
    """One deadline notification per case x due date: a moved deadline notifies again."""
    return f"deadline:{case_id}:{due_on.isoformat()}"


def deadline_title(case_id: int, due_on: date, today: date) -> str:
    days = (due_on - today).days
    when = "today" if days == 0 else ("tomorrow" if days == 1 else f"in {days} days")
    return f"Appeal deadline for case {case_id} is {when} ({due_on.isoformat()})"
