"""Whether a claim's lines that need a prior authorization have one that covers them (pure: no I/O).

An authorization covers a line when it was approved, names the line's procedure code (and its line
number, when it names one), its validity (valid from .. valid to, inclusive) holds every service date
of the line (from .. to), and it still has the units: the claim's lines draw on an authorization's
approved units in line order, so two lines of 3 units do not fit one authorization of 4.

A line not covered gets the one reason a person can act on, checked in this order:

- ``pending``: a request for it is awaiting the payer's decision (requested or pending);
- ``units_exceeded``: an approval covers its dates but has too few units left;
- ``expired``: an approval ended before the line's service began;
- ``dates_not_covered``: an approval's validity does not hold the line's service dates;
- ``denied``: the payer denied the request;
- ``none_requested``: nothing was requested (or every request was withdrawn).

Expiry is decided here, at read, from the dates (an approval past its valid-to date is ``expired`` for
a service after it and still covers a service inside it): the stored state stays ``approved``, so no
sweep job has to run on time for the flag to be right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

Missing = Literal["pending", "units_exceeded", "expired", "dates_not_covered", "denied", "none_requested"]
OPEN_STATES = frozenset({"requested", "pending"})


@dataclass(frozen=True, slots=True)
class Authorization:
    """A stored request as the rule sees it."""

    id: int
    state: str  # requested | pending | approved | denied | withdrawn
    procedure_code: str
    line_number: int | None = None
    approved_units: Decimal | None = None
    valid_from: date | None = None
    valid_to: date | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """A claim line that needs an authorization."""

    line_number: int
    procedure_code: str
    units: Decimal
    service_from: date
    service_to: date


@dataclass(frozen=True, slots=True)
class Verdict:
    """A line's answer: covered by `authorization_id`, or `missing` with the request it concerns."""

    line_number: int
    covered_by: int | None
    missing: Missing | None
    authorization_id: int | None = None  # the request the missing reason is about (None: none requested)


def _names(auth: Authorization, line: Line) -> bool:
    return auth.procedure_code == line.procedure_code and auth.line_number in (None, line.line_number)


def _holds_dates(auth: Authorization, line: Line) -> bool:
    return (
        auth.valid_from is not None
        and auth.valid_to is not None
        and auth.valid_from <= line.service_from
        and line.service_to <= auth.valid_to
    )


def _missing(line: Line, relevant: list[Authorization]) -> Verdict:
    def first(reason: Missing, found: list[Authorization]) -> Verdict | None:
        return Verdict(line.line_number, None, reason, found[0].id) if found else None

    approved = [a for a in relevant if a.state == "approved"]
    checks: list[tuple[Missing, list[Authorization]]] = [
        ("pending", [a for a in relevant if a.state in OPEN_STATES]),
        ("units_exceeded", [a for a in approved if _holds_dates(a, line)]),
        ("expired", [a for a in approved if a.valid_to is not None and a.valid_to < line.service_from]),
        ("dates_not_covered", approved),
        ("denied", [a for a in relevant if a.state == "denied"]),
    ]
    for reason, found in checks:
        verdict = first(reason, found)
        if verdict is not None:
            return verdict
    return Verdict(line.line_number, None, "none_requested")


def verdicts(lines: Sequence[Line], authorizations: Sequence[Authorization]) -> list[Verdict]:
    """One verdict per line needing an authorization, in line order (see the module docstring)."""
    ordered = sorted(authorizations, key=lambda a: (a.valid_from or date.min, a.id))
    left = {a.id: a.approved_units or Decimal(0) for a in ordered if a.state == "approved"}
    out: list[Verdict] = []
    for line in sorted(lines, key=lambda ln: ln.line_number):
        relevant = [a for a in ordered if _names(a, line)]
        usable = [a for a in relevant if a.state == "approved" and _holds_dates(a, line) and left[a.id] >= line.units]
        if usable:
            left[usable[0].id] -= line.units
            out.append(Verdict(line.line_number, usable[0].id, None))
        else:
            out.append(_missing(line, relevant))
    return out
