"""The rules of an uploaded contract term, pure (rows in, reasons out).

The tabular reader casts each column; this module checks what makes a row a usable contract term:
a known pricing method (with the values that method needs), rates that are not negative, a percent of
charges between 0 and 100, a yes/no lesser-of flag, an end not before the start, and, across the rows of
one file, no two terms of the same payer, plan, method, procedure code, modifier and DRG in effect on the
same day (two prices for one service on one date would make the expected amount a guess).

How terms price a service is not here: it is written once, in SQL, in
``dbt_project/macros/contract_pricing.sql`` (the marts price, the API reads the marts).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

METHODS = ("fee_schedule", "percent_of_charges", "drg_case_rate", "per_diem")

# Spellings seen in payer contract spreadsheets -> the canonical method.
_METHOD_ALIASES = {
    "fee schedule": "fee_schedule",
    "fee": "fee_schedule",
    "fs": "fee_schedule",
    "percent of charges": "percent_of_charges",
    "pct of charges": "percent_of_charges",
    "poc": "percent_of_charges",
    "percent": "percent_of_charges",
    "drg case rate": "drg_case_rate",
    "drg": "drg_case_rate",
    "case rate": "drg_case_rate",
    "per diem": "per_diem",
    "perdiem": "per_diem",
}
_YES = {"y", "yes", "true", "1", "x"}
_NO = {"n", "no", "false", "0", ""}


def normalise_method(text: str | None) -> str | None:
    """The canonical method for a spelling (``Fee Schedule``, ``pct_of_charges``, ``DRG``); None if unknown."""
    if text is None:
        return None
    words = " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())
    if words.replace(" ", "_") in METHODS:
        return words.replace(" ", "_")
    return _METHOD_ALIASES.get(words)


def parse_percent(text: str | None) -> Decimal | None:
    """``"62.5"`` or ``"62.5%"`` -> Decimal("62.5"): a percent as 0-100. ValueError when not a number."""
    if text is None or not str(text).strip():
        return None
    try:
        value = Decimal(str(text).strip().rstrip("%").strip())
    except InvalidOperation:
        raise ValueError("not a number") from None
    if not value.is_finite():
        raise ValueError("not a number")
    return value


def parse_flag(text: str | None) -> bool:
    """Lesser-of as a boolean: yes/y/true/1/x or no/n/false/0/empty. ValueError otherwise."""
    word = (text or "").strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise ValueError("not yes or no")


@dataclass(frozen=True)
class Term:
    """A checked contract term (the values the operational table stores)."""

    payer_name: str
    payer_key: str
    payer_id: str | None
    plan_code: str | None
    method: str
    procedure_code: str | None
    modifier: str | None
    drg_code: str | None
    rate: Decimal | None
    percent_of_charges: Decimal | None
    lesser_of: bool
    effective_from: date
    effective_to: date | None

    @property
    def overlap_key(self) -> tuple[Any, ...]:
        """Terms with the same key must not be in effect on the same day."""
        return (
            self.payer_key,
            self.plan_code,
            self.method,
            self.procedure_code,
            self.modifier,
            self.drg_code,
        )


def _method_errors(method: str, row: Mapping[str, Any], percent: Decimal | None) -> list[str]:
    """What the method needs that the row lacks."""
    needs = {
        "fee_schedule": ("procedure_code", "rate"),
        "drg_case_rate": ("drg_code", "rate"),
        "per_diem": ("rate",),
        "percent_of_charges": (),
    }[method]
    errors = [f"{name}: required for a {method} term" for name in needs if row.get(name) in (None, "")]
    if method == "percent_of_charges" and percent is None and row.get("percent_of_charges") in (None, ""):
        errors.append("percent_of_charges: required for a percent_of_charges term")
    return errors


def _amount_errors(row: Mapping[str, Any], percent_text: Any) -> tuple[list[str], Decimal | None]:
    errors: list[str] = []
    rate = row.get("rate")
    if rate is not None and Decimal(str(rate)) < 0:
        errors.append(f"rate: {rate} is negative; a contract rate is 0 or more")
    percent = None
    try:
        percent = parse_percent(percent_text)
    except ValueError:
        errors.append(f"percent_of_charges: {str(percent_text)[:20]!r} is not a percent (0-100, e.g. 62.5)")
    if percent is not None and not (0 <= percent <= 100):
        errors.append(f"percent_of_charges: {percent} is outside 0-100")
    return errors, percent


def _flag_and_date_errors(row: Mapping[str, Any]) -> tuple[bool, date | None, date | None, list[str]]:
    """(lesser-of, start, end, reasons) of a row."""
    errors: list[str] = []
    try:
        lesser_of = parse_flag(row.get("lesser_of"))
    except ValueError:
        errors.append(f"lesser_of: {str(row.get('lesser_of'))[:20]!r} is not yes or no")
        lesser_of = False
    start, end = _as_date(row.get("effective_from")), _as_date(row.get("effective_to"))
    if start is not None and end is not None and end < start:
        errors.append(f"effective_to: {end.isoformat()} is before effective_from {start.isoformat()}")
    return lesser_of, start, end, errors


def check_row(row: Mapping[str, Any]) -> tuple[Term | None, list[str]]:
    """(the term, None when invalid; the reasons). ``row`` holds the tabular reader's typed values."""
    errors: list[str] = []
    method = normalise_method(row.get("method"))
    if method is None:
        errors.append(
            f"method: {str(row.get('method') or '')[:30]!r} is not a pricing method "
            f"(expected one of {', '.join(METHODS)})"
        )
    amount_errors, percent = _amount_errors(row, row.get("percent_of_charges"))
    errors += amount_errors
    if method is not None:
        errors += _method_errors(method, row, percent)
    lesser_of, start, end, more = _flag_and_date_errors(row)
    errors += more
    payer = (row.get("payer_name") or "").strip()
    if errors or method is None or start is None or not payer:
        return None, errors
    rate = row.get("rate")
    term = Term(
        payer_name=payer,
        payer_key=payer.upper(),
        payer_id=row.get("payer_id") or None,
        plan_code=row.get("plan") or None,
        method=method,
        procedure_code=row.get("procedure_code") or None,
        modifier=row.get("modifier") or None,
        drg_code=row.get("drg_code") or None,
        rate=None if rate is None else Decimal(str(rate)),
        percent_of_charges=percent,
        lesser_of=lesser_of,
        effective_from=start,
        effective_to=end,
    )
    return term, errors


def _as_date(value: Any) -> date | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def overlaps(a: Term, b: Term) -> bool:
    """Whether two terms are both in effect on some day (both ends inclusive; no end = open-ended)."""
    a_end, b_end = a.effective_to or date.max, b.effective_to or date.max
    return a.effective_from <= b_end and b.effective_from <= a_end


def overlap_errors(terms: Iterable[tuple[int, Term]]) -> dict[int, list[str]]:
    """{row number: reasons} for rows whose term overlaps another row's term with the same key."""
    groups: dict[tuple[Any, ...], list[tuple[int, Term]]] = defaultdict(list)
    for number, term in terms:
        groups[term.overlap_key].append((number, term))
    errors: dict[int, list[str]] = defaultdict(list)
    for members in groups.values():
        ordered = sorted(members, key=lambda m: (m[1].effective_from, m[0]))
        for i, (number, term) in enumerate(ordered):
            for other_number, other in ordered[i + 1 :]:
                if other.effective_from > (term.effective_to or date.max):
                    break
                if overlaps(term, other):
                    message = (
                        "effective_from/effective_to: overlaps row {n} (same payer, plan, method, procedure "
                        "code, modifier and DRG in effect on the same days)"
                    )
                    errors[number].append(message.format(n=other_number))
                    errors[other_number].append(message.format(n=number))
    return dict(errors)
