"""What makes hospital voice settings valid, and their defaults (pure, no I/O).

- NPI: 10 digits whose last digit is the Luhn check digit of the first nine prefixed with the card
  issuer prefix ``80840`` (the NPI standard, 45 CFR 162.406; CMS "NPI check digit" note).
- TIN: 9 digits (an EIN, written ``12-3456789`` or ``123456789``; stored as digits), not all zeros.
- Callback number: a 10-digit North American number (a leading ``1`` is dropped).
- Hours: an IANA time zone and weekly windows (``mon``..``sun``, ``HH:MM`` start before end, no
  overlap on a day).
- Scripts: one ``string.Template`` per goal using only the placeholders in ``PLACEHOLDERS``.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from api.core.errors import InvalidInput

GOALS: tuple[str, ...] = ("claim_status", "appeal_status", "reopening_request")
DAYS: tuple[str, ...] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
NPI_PREFIX = "80840"
PLACEHOLDERS = frozenset(
    {
        "caller_name",
        "callback_number",
        "npi",
        "tin",
        "payer",
        "claim_number",
        "payer_claim_number",
        "date_of_service",
        "billed_amount",
        "reopening_reason",
    }
)
MAX_WINDOWS = 21

DEFAULT_CALLER_NAME = "Patient Financial Services"
DEFAULT_TIMEZONE = "America/New_York"
DEFAULT_WINDOWS: tuple[tuple[str, str, str], ...] = tuple((day, "08:00", "17:00") for day in DAYS[:5])
DEFAULT_SCRIPTS: Mapping[str, str] = {
    "claim_status": (
        "Hi, this is ${caller_name} calling on behalf of the provider to check the status of a claim. "
        "The claim number is ${claim_number}, date of service ${date_of_service}."
    ),
    "appeal_status": (
        "Hi, this is ${caller_name} calling on behalf of the provider to check the status of an appeal "
        "on claim ${claim_number}, date of service ${date_of_service}."
    ),
    "reopening_request": (
        "Hi, this is ${caller_name} calling on behalf of the provider to request a reopening of claim "
        "${claim_number}, date of service ${date_of_service}, for ${reopening_reason}."
    ),
}

_HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


def luhn_valid(digits: str) -> bool:
    """The Luhn (mod 10) check over a string of digits, check digit last."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def npi_valid(npi: str) -> bool:
    return len(npi) == 10 and npi.isdigit() and luhn_valid(NPI_PREFIX + npi)


def npi_check_digit(first_nine: str) -> str:
    """The check digit that makes `first_nine` + digit a valid NPI."""
    for digit in "0123456789":
        if luhn_valid(NPI_PREFIX + first_nine + digit):
            return digit
    raise ValueError("no check digit")  # pragma: no cover - Luhn always has one


def normalise_npi(value: str) -> str:
    npi = value.strip()
    if not npi_valid(npi):
        raise InvalidInput("Invalid input: 'npi' must be 10 digits with a valid check digit (NPI standard)")
    return npi


def normalise_tin(value: str) -> str:
    tin = re.sub(r"[\s-]", "", value)
    if not (len(tin) == 9 and tin.isdigit()) or tin == "000000000":
        raise InvalidInput("Invalid input: 'tin' must be 9 digits (e.g. 12-3456789)")
    return tin


def normalise_phone(value: str) -> str:
    digits = re.sub(r"[\s().+-]", "", value)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if not (len(digits) == 10 and digits.isdigit()) or digits[0] in "01":
        raise InvalidInput("Invalid input: 'callbackNumber' must be a 10-digit North American phone number")
    return digits


@dataclass(frozen=True)
class Window:
    day: str
    start: str
    end: str


def _minutes(hhmm: str, field: str) -> int:
    match = _HHMM.match(hhmm)
    if match is None:
        raise InvalidInput(f"Invalid input: '{field}' must be HH:MM (24-hour)")
    return int(match.group(1)) * 60 + int(match.group(2))


def check_timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInput("Invalid input: 'hours.timezone' is not an IANA time zone (e.g. America/Chicago)") from None
    return name


def check_windows(windows: Sequence[Window]) -> list[Window]:
    """Windows sorted by day and start; refused if a window ends before it starts or two overlap."""
    if len(windows) > MAX_WINDOWS:
        raise InvalidInput(f"Invalid input: 'hours.windows' holds at most {MAX_WINDOWS} windows")
    spans: list[tuple[int, int, int, Window]] = []
    for window in windows:
        if window.day not in DAYS:
            raise InvalidInput(f"Invalid input: 'hours.windows.day' must be one of {', '.join(DAYS)}")
        start, end = _minutes(window.start, "hours.windows.start"), _minutes(window.end, "hours.windows.end")
        if start >= end:
            raise InvalidInput("Invalid input: 'hours.windows' start must be before end")
        spans.append((DAYS.index(window.day), start, end, window))
    spans.sort(key=lambda s: (s[0], s[1]))
    for previous, current in itertools.pairwise(spans):
        if previous[0] == current[0] and current[1] < previous[2]:
            raise InvalidInput("Invalid input: 'hours.windows' overlap on one day")
    return [s[3] for s in spans]


def within_hours(timezone: str, windows: Sequence[Window], at: datetime) -> bool:
    """Whether the aware instant `at` falls in one of the windows, in the hospital's time zone."""
    local = at.astimezone(ZoneInfo(timezone))
    day = DAYS[local.weekday()]
    minute = local.hour * 60 + local.minute
    return any(w.day == day and _minutes(w.start, "start") <= minute < _minutes(w.end, "end") for w in windows)


def check_script(goal: str, template: str) -> str:
    """A script uses only known placeholders and is a well-formed template."""
    if goal not in GOALS:
        raise InvalidInput(f"Invalid input: 'scripts' goal must be one of {', '.join(GOALS)}")
    parsed = string.Template(template)
    if not parsed.is_valid():
        raise InvalidInput(f"Invalid input: 'scripts.{goal}' is not a valid template (use ${{name}})")
    unknown = sorted(set(parsed.get_identifiers()) - PLACEHOLDERS)
    if unknown:
        raise InvalidInput(
            f"Invalid input: 'scripts.{goal}' uses unknown placeholder(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(PLACEHOLDERS))}"
        )
    return template


def render_script(template: str, values: Mapping[str, str]) -> str:
    """The script with its placeholders filled; a value the call does not have reads 'not on file'."""
    filled = {name: values.get(name) or "not on file" for name in PLACEHOLDERS}
    return string.Template(template).safe_substitute(filled)
