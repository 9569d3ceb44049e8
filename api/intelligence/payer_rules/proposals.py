"""What a proposed payer-rule change may hold (pure): one checker per kind of rule, keyed by kind.

A change is stored as its kind and a JSON payload; the kind's checker says whether the payload is a
rule of that kind and answers it normalised (defaults filled in, dates as ISO text), both when it is
proposed and again when it is approved (the platform's rules may have changed meanwhile). Today the one
kind is ``limit`` (an appeal or timely-filing limit, applied to ``payer_rules`` by the deadlines);
``authorization`` and ``frequency`` are meant to join as further entries of ``CHECKERS`` (and of the
service's appliers), nothing else changing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from api.core.errors import InvalidInput
from api.denials.deadlines import rules

Payload = dict[str, Any]
Checker = Callable[[Mapping[str, Any]], Payload]

#: the span a rule date may take (the business calendar's, as the wire's `Day`)
FIRST_DAY, LAST_DAY = date(1900, 1, 1), date(2199, 12, 31)
LIMIT_FIELDS = frozenset(
    {"payer_type", "payer_id", "level", "days", "day_count", "roll_forward", "receipt_days", "effective_from", "source"}
)


def _bad(field: str, why: str) -> InvalidInput:
    return InvalidInput(f"Invalid input: '{field}' {why}")


def _text(payload: Mapping[str, Any], field: str, longest: int, default: str | None = None) -> str:
    value = payload.get(field, default)
    if not isinstance(value, str) or not value.strip():
        raise _bad(field, "is required text")
    value = value.strip()
    if len(value) > longest or any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise _bad(field, f"must be one line of at most {longest} characters")
    return value


def _whole(payload: Mapping[str, Any], field: str, low: int, high: int, default: int | None = None) -> int:
    value = payload.get(field, default)
    # bool is an int in Python: true is not a number of days
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _bad(field, f"must be a whole number from {low} to {high}")
    return value


def _day(payload: Mapping[str, Any], field: str) -> date:
    value = payload.get(field)
    try:
        day = date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        day = None
    if day is None or not FIRST_DAY <= day <= LAST_DAY:
        raise _bad(field, "must be a date (YYYY-MM-DD) from 1900-01-01 to 2199-12-31")
    return day


def level_of(payer_type: str, level: str) -> rules.LimitRule:
    """The platform rule of ``level`` for ``payer_type`` (a client's rule takes its basis from it);
    INVALID_INPUT naming the payer type's levels when it has no such level."""
    found = rules.rule_for(payer_type, level)
    if found is None:
        known = [*rules.appeal_levels(payer_type)]
        if rules.rule_for(payer_type, rules.TIMELY_FILING) is not None:
            known.append(rules.TIMELY_FILING)
        raise InvalidInput(f"Invalid input: 'level' is not a level of {payer_type} (known: {', '.join(known)})")
    return found


def check_limit(payload: Mapping[str, Any]) -> Payload:
    """A client's appeal or timely-filing limit: payer type, payer id (``*``: every payer of the type),
    a level the payer type has (``rules``: the platform's levels), days 1..3650, calendar or business
    days, the roll to a business day, receipt days 0..30, the date it is in force from, its source."""
    unknown = sorted(set(payload) - LIMIT_FIELDS)
    if unknown:
        raise _bad(unknown[0], "is not a field of a limit rule")
    payer_type = _text(payload, "payer_type", 30)
    if payer_type not in rules.PAYER_TYPES:
        raise _bad("payer_type", f"must be one of {', '.join(rules.PAYER_TYPES)}")
    level = _text(payload, "level", 40)
    level_of(payer_type, level)
    day_count = payload.get("day_count", "calendar")
    if day_count not in ("calendar", "business"):
        raise _bad("day_count", "must be calendar or business")
    roll_forward = payload.get("roll_forward", False)
    if not isinstance(roll_forward, bool):
        raise _bad("roll_forward", "must be true or false")
    return {
        "payer_type": payer_type,
        "payer_id": _text(payload, "payer_id", 80, "*"),
        "level": level,
        "days": _whole(payload, "days", 1, 3650),
        "day_count": day_count,
        "roll_forward": roll_forward,
        "receipt_days": _whole(payload, "receipt_days", 0, 30, 0),
        "effective_from": _day(payload, "effective_from").isoformat(),
        "source": _text(payload, "source", 500),
    }


#: one checker per kind of rule change (the dispatch: a new kind is a new entry)
CHECKERS: Mapping[str, Checker] = {"limit": check_limit}
KINDS: tuple[str, ...] = tuple(CHECKERS)


def check(kind: str, payload: Mapping[str, Any]) -> Payload:
    """The payload normalised by its kind's checker; INVALID_INPUT for an unknown kind or a bad payload."""
    checker = CHECKERS.get(kind)
    if checker is None:
        raise _bad("kind", f"must be one of {', '.join(KINDS)}")
    return checker(payload)
