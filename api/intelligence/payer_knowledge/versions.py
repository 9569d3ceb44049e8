"""Versions of one payer fact (pure): a timeline of non-overlapping date spans, never rewritten backwards.

The versions of one (payer, kind, label) are ordered by ``effective_from``. A new version starting on
day ``f`` closes the version in force on ``f`` at ``f - 1`` (it is kept, never deleted: what the payer
said before stays readable) and, when it is inserted before a later version, ends the day before that
one starts. So at most one version is in force on any day, and a newer statement never changes what
was recorded as true before its own start.

Example: a portal recorded from 2026-01-01 (open-ended), then a new portal from 2026-03-15: the first
is closed at 2026-03-14, the second is open-ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from api.core.errors import Conflict, InvalidInput


@dataclass(frozen=True, slots=True)
class Span:
    """A stored version: its id and the days it is in force (``effective_to`` None: until further notice)."""

    id: int
    effective_from: date
    effective_to: date | None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a new version goes: its own last day and the versions to close (id, new last day)."""

    effective_to: date | None
    closes: tuple[tuple[int, date], ...]


def in_force(span: Span, on: date) -> bool:
    return span.effective_from <= on and (span.effective_to is None or on <= span.effective_to)


def place(existing: Sequence[Span], effective_from: date, effective_to: date | None = None) -> Placement:
    """Where a version from ``effective_from`` (to ``effective_to``, None: open-ended) goes among
    ``existing`` (the stored versions of the same payer, kind and label, any order).

    - the version before it (the latest starting earlier) is closed at ``effective_from - 1`` when it
      was open-ended or ran past that day;
    - a later version bounds it: it ends the day before that one starts; an ``effective_to`` given on or
      after that day would overlap it (INVALID_INPUT naming the later version's start);
    - a version starting the same day is CONFLICT (the caller decides whether it is the same fact again);
    - ``effective_to`` before ``effective_from`` is INVALID_INPUT."""
    if effective_to is not None and effective_to < effective_from:
        raise InvalidInput("Invalid input: 'effectiveTo' is before 'effectiveFrom'")
    if any(s.effective_from == effective_from for s in existing):
        raise Conflict(
            f"A version of this fact already starts on {effective_from.isoformat()}: record the change from "
            "another day (the day it took effect)"
        )
    later = [s for s in existing if s.effective_from > effective_from]
    earlier = [s for s in existing if s.effective_from < effective_from]
    return Placement(_end(later, effective_to), _closes(earlier, effective_from))


def _end(later: Sequence[Span], effective_to: date | None) -> date | None:
    """The new version's last day: as given, bounded by the next version's start."""
    if not later:
        return effective_to
    following = min(later, key=lambda s: s.effective_from)
    bound = following.effective_from - timedelta(days=1)
    if effective_to is not None and effective_to > bound:
        raise InvalidInput(
            f"Invalid input: 'effectiveTo' overlaps the version from {following.effective_from.isoformat()}; "
            f"end it on {bound.isoformat()} at the latest"
        )
    return bound if effective_to is None else effective_to


def _closes(earlier: Sequence[Span], effective_from: date) -> tuple[tuple[int, date], ...]:
    """The version before the new one, closed the day before it starts when it ran past that day."""
    if not earlier:
        return ()
    previous = max(earlier, key=lambda s: s.effective_from)
    last_day = effective_from - timedelta(days=1)
    if previous.effective_to is None or previous.effective_to > last_day:
        return ((previous.id, last_day),)
    return ()


def current(existing: Sequence[Span], on: date) -> Span | None:
    """The version in force on ``on`` (None: none is)."""
    found = [s for s in existing if in_force(s, on)]
    return max(found, key=lambda s: s.effective_from) if found else None
