"""What a proposed payer-rule change may hold (pure): one checker per kind of rule, keyed by kind.

A change is stored as its kind and a JSON payload; the kind's checker says whether the payload is a
rule of that kind and answers it normalised (defaults filled in, dates as ISO text), both when it is
proposed and again when it is approved (the platform's rules may have changed meanwhile). The kinds:
``limit`` (an appeal or timely-filing limit, applied to ``payer_rules`` by the deadlines) and
``authorization`` (a prior-authorization requirement or exemption, applied to ``prior_auth_requirements``
by priorAuthorization, whose own check of a requirement is the one used here: one owner of the rule) and
``frequency`` (at most N units of a code or range per period per patient, applied to payerRules' own
``payer_frequency_limits``; checked by ``frequency.check``, its codes parsed by priorAuthorization's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from api.core.errors import InvalidInput
from api.denials.deadlines import rules
from api.denials.prior_authorization import service as prior_authorization
from api.intelligence.payer_rules import frequency

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


def _only(payload: Mapping[str, Any], fields: frozenset[str], what: str) -> None:
    """A field the kind does not have is refused (by name, the first in order), never ignored."""
    unknown = sorted(set(payload) - fields)
    if unknown:
        raise _bad(unknown[0], f"is not a field of {what}")


def _optional_day(payload: Mapping[str, Any], field: str) -> str | None:
    """An optional date field as ISO text (None when absent)."""
    return _day(payload, field).isoformat() if payload.get(field) is not None else None


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
    _only(payload, LIMIT_FIELDS, "a limit rule")
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


AUTHORIZATION_FIELDS = frozenset(
    {
        "payer_type",
        "payer_id",
        "plan",
        "procedure_codes",
        "place_of_service",
        "revenue_code",
        "requires_authorization",
        "effective_from",
        "effective_to",
        "source",
    }
)


def authorization_values(payload: Mapping[str, Any]) -> prior_authorization.RequirementValues:
    """The payload (already checked) as priorAuthorization's requirement values."""
    until = payload.get("effective_to")
    return prior_authorization.RequirementValues(
        payer_type=payload["payer_type"],
        payer_id=payload["payer_id"],
        plan=payload["plan"],
        procedure_code=payload["procedure_codes"],
        place_of_service=payload["place_of_service"],
        revenue_code=payload["revenue_code"],
        requires_authorization=payload["requires_authorization"],
        effective_from=date.fromisoformat(payload["effective_from"]),
        effective_to=date.fromisoformat(until) if until is not None else None,
        source=payload["source"],
    )


def check_authorization(payload: Mapping[str, Any]) -> Payload:
    """A client's prior-authorization requirement (``requires_authorization`` false: an exemption): payer
    type, payer id and plan (``*``: any), a CPT/HCPCS code or a range of one kind, place of service and
    revenue code (``*``: any), the dates it is in force, its source. The JSON's shape is checked here; what
    a requirement is (codes, ranges, POS, revenue codes, dates in order) is priorAuthorization's own check
    (``checked_requirement``), so a change approved here is one that priorAuthorization would store."""
    _only(payload, AUTHORIZATION_FIELDS, "an authorization requirement")
    payer_type = _text(payload, "payer_type", 30)
    if payer_type not in rules.PAYER_TYPES:
        raise _bad("payer_type", f"must be one of {', '.join(rules.PAYER_TYPES)}")
    flag = payload.get("requires_authorization", True)
    if not isinstance(flag, bool):
        raise _bad("requires_authorization", "must be true or false")
    until = _optional_day(payload, "effective_to")
    given = {
        "payer_type": payer_type,
        "payer_id": _text(payload, "payer_id", 80, "*"),
        "plan": _text(payload, "plan", 80, "*"),
        # the longest code text priorAuthorization parses is a range of two 5-character codes
        "procedure_codes": _text(payload, "procedure_codes", 11),
        "place_of_service": _text(payload, "place_of_service", 2, "*"),
        "revenue_code": _text(payload, "revenue_code", 4, "*"),
        "requires_authorization": flag,
        "effective_from": _day(payload, "effective_from").isoformat(),
        "effective_to": until,
        "source": _text(payload, "source", 500),
    }
    req = prior_authorization.checked_requirement(authorization_values(given))
    return {
        **given,
        "payer_id": req.payer_id,
        "plan": req.plan,
        "procedure_codes": str(req.codes),
        "place_of_service": req.place_of_service,
        "revenue_code": req.revenue_code,
        "source": req.source,
    }


FREQUENCY_FIELDS = frozenset(
    {
        "payer_type",
        "payer_id",
        "plan",
        "procedure_codes",
        "max_units",
        "period",
        "period_length",
        "effective_from",
        "effective_to",
        "source",
    }
)


def frequency_limit(payload: Mapping[str, Any]) -> frequency.FrequencyLimit:
    """The payload (already checked) as a frequency limit (no id: as it would read once approved)."""
    until = payload.get("effective_to")
    return frequency.FrequencyLimit(
        payer_type=payload["payer_type"],
        payer_id=payload["payer_id"],
        plan=payload["plan"],
        codes=prior_authorization.parse_code_range(payload["procedure_codes"]),
        max_units=payload["max_units"],
        period=payload["period"],
        period_length=payload["period_length"],
        effective_from=date.fromisoformat(payload["effective_from"]),
        effective_to=date.fromisoformat(until) if until is not None else None,
        source=payload["source"],
    )


def _period_length(payload: Mapping[str, Any]) -> int | None:
    value = payload.get("period_length")
    if value is None:
        return None
    # the bounds are the period's (frequency.check); here only its type
    return _whole(payload, "period_length", 1, 100_000)


def check_frequency(payload: Mapping[str, Any]) -> Payload:
    """A client's frequency limit: payer type, payer id and plan (``*``: any), a CPT/HCPCS code or a range
    of one kind (priorAuthorization's parsing), at most ``max_units`` (1..9999) per ``period`` (day,
    rolling_days, months, calendar_year, lifetime; ``period_length`` N for rolling_days and months only),
    the dates it is in force, its source. What a limit is (periods, lengths, dates in order) is
    ``frequency.check``."""
    _only(payload, FREQUENCY_FIELDS, "a frequency limit")
    period = _text(payload, "period", 20)
    if period not in frequency.PERIODS:
        raise _bad("period", f"must be one of {', '.join(frequency.PERIODS)}")
    until = _optional_day(payload, "effective_to")
    given = {
        "payer_type": _text(payload, "payer_type", 30),
        "payer_id": _text(payload, "payer_id", 80, "*").upper(),
        "plan": _text(payload, "plan", 80, "*").upper(),
        # the longest code text priorAuthorization parses is a range of two 5-character codes
        "procedure_codes": _text(payload, "procedure_codes", 11),
        "max_units": _whole(payload, "max_units", 1, frequency.MAX_UNITS),
        "period": period,
        "period_length": _period_length(payload),
        "effective_from": _day(payload, "effective_from").isoformat(),
        "effective_to": until,
        "source": _text(payload, "source", 500),
    }
    limit = frequency.check(frequency_limit(given))
    return {**given, "procedure_codes": str(limit.codes)}


#: one checker per kind of rule change (the dispatch: a new kind is a new entry)
CHECKERS: Mapping[str, Checker] = {
    "limit": check_limit,
    "authorization": check_authorization,
    "frequency": check_frequency,
}
KINDS: tuple[str, ...] = tuple(CHECKERS)


def check(kind: str, payload: Mapping[str, Any]) -> Payload:
    """The payload normalised by its kind's checker; INVALID_INPUT for an unknown kind or a bad payload."""
    checker = CHECKERS.get(kind)
    if checker is None:
        raise _bad("kind", f"must be one of {', '.join(KINDS)}")
    return checker(payload)
