"""Filters shared by the analytical read procedures, validated with messages that name the field.

Months are "YYYY-MM", dates ISO "YYYY-MM-DD", payers the payer key shown in
the answers (case-insensitive). Mart lists page with an opaque offset cursor:
snapshot rows never change under a reader, so an offset is stable within one
snapshot.
"""

from __future__ import annotations

import base64
import re
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Annotated, Any, Self, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, WithJsonSchema, model_validator

from api.core.errors import InvalidInput
from api.infra.snapshot.reader import ScopedMarts
from api.rpc.schema import Schema

M = TypeVar("M", bound=BaseModel)

#: Amount filters: below a trillion dollars, two decimals.
MAX_INPUT_AMOUNT = Decimal("1000000000000")


def _amount(value: Any) -> Decimal:
    """An amount given as a JSON number or a decimal string, exact to the cent. Refuses text that is not
    a number, NaN/Infinity and absurd magnitudes with a message (ValueError: the validator reports it
    as the field's issue)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError("expected an amount such as 125.50")
    try:
        # A JSON number arrives as a float: its shortest repr is the decimal the caller wrote.
        amount = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise ValueError("expected an amount such as 125.50") from None
    if not amount.is_finite() or abs(amount) >= MAX_INPUT_AMOUNT:
        raise ValueError("expected a finite amount below 1,000,000,000,000")
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


#: An amount in a procedure's input (a filter such as "at least this gap").
AmountInput = Annotated[
    Decimal,
    BeforeValidator(_amount),
    WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "string", "pattern": r"^-?\d{1,13}(\.\d{1,2})?$"}]}),
]

_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
_PAYER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._&'/-]{0,99}$")
MAX_MONTH_SPAN = 120
MAX_DAY_SPAN = 3_660


def _month(value: str) -> str:
    if not _MONTH.match(value):
        raise ValueError("must be a month written YYYY-MM, e.g. 2026-03")
    return value


def _payer(value: str) -> str:
    if not _PAYER.match(value):
        raise ValueError(
            "must be a payer key as listed by payerIntelligence.scorecard (letters, digits, spaces, . _ & ' / -)"
        )
    return value.upper()


Month = Annotated[str, AfterValidator(_month), Field(description="Month, YYYY-MM")]
PayerKey = Annotated[str, AfterValidator(_payer), Field(description="Payer key (case-insensitive)")]


def month_start(month: str) -> date:
    """First day of a validated "YYYY-MM" month."""
    year, mon = month.split("-")
    return date(int(year), int(mon), 1)


def month_label(value: date | None) -> str | None:
    """ "YYYY-MM" of a date (a mart month column)."""
    return None if value is None else month_text(value)


def month_text(value: date) -> str:
    """ "YYYY-MM" of a date from a month column that is never null (a grouping key)."""
    return f"{value.year:04d}-{value.month:02d}"


class MonthRange(Schema):
    """Optional inclusive month range; both ends are "YYYY-MM"."""

    from_month: Month | None = None
    to_month: Month | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.from_month and self.to_month:
            start, end = month_start(self.from_month), month_start(self.to_month)
            if start > end:
                raise ValueError("fromMonth must not be after toMonth")
            if (end.year - start.year) * 12 + end.month - start.month >= MAX_MONTH_SPAN:
                raise ValueError(f"the month range may span at most {MAX_MONTH_SPAN} months")
        return self

    def month_params(self, column: str) -> tuple[str, dict[str, Any]]:
        """A SQL condition on the date `column` and its parameters ("true" when unbounded)."""
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if self.from_month:
            clauses.append(f"{column} >= $from_month")
            params["from_month"] = month_start(self.from_month)
        if self.to_month:
            clauses.append(f"{column} <= $to_month")
            params["to_month"] = month_start(self.to_month)
        return (" and ".join(clauses) or "true"), params


class DateRange(Schema):
    """Optional inclusive date range."""

    from_date: date | None = None
    to_date: date | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.from_date and self.to_date:
            if self.from_date > self.to_date:
                raise ValueError("fromDate must not be after toDate")
            if (self.to_date - self.from_date).days > MAX_DAY_SPAN:
                raise ValueError(f"the date range may span at most {MAX_DAY_SPAN} days")
        return self

    def date_params(self, column: str) -> tuple[str, dict[str, Any]]:
        """A SQL condition on the date `column` and its parameters ("true" when unbounded)."""
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if self.from_date:
            clauses.append(f"{column} >= $from_date")
            params["from_date"] = self.from_date
        if self.to_date:
            clauses.append(f"{column} <= $to_date")
            params["to_date"] = self.to_date
        return (" and ".join(clauses) or "true"), params


class MartPageInput(Schema):
    """Page size and the opaque cursor of the previous page."""

    limit: int = Field(default=50, ge=1, le=500, description="Page size (max 500)")
    cursor: str | None = Field(default=None, description="nextCursor of the previous page")


def encode_offset(offset: int) -> str:
    return base64.urlsafe_b64encode(f"off:{offset}".encode()).decode().rstrip("=")


OFFSET_MAX = 2**62


def decode_offset(cursor: str | None) -> int:
    """The row offset a cursor stands for (0 without a cursor); BAD_REQUEST for anything else."""
    if cursor is None:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, value = raw.partition(":")
        offset = int(value)
        # Bounded like every integer input: DuckDB refuses an OFFSET past 64 bits with an error, not a page.
        if kind != "off" or not 0 <= offset <= OFFSET_MAX:
            raise ValueError
        return offset
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this list") from None


def page_rows(
    m: ScopedMarts, sql: str, params: dict[str, Any], page: MartPageInput
) -> tuple[list[dict[str, Any]], str | None]:
    """Run an ORDERed mart query one page at a time: (rows, next cursor or None)."""
    offset = decode_offset(page.cursor)
    rows = m.rows(f"{sql} limit {int(page.limit) + 1} offset {int(offset)}", params)
    more = len(rows) > page.limit
    return rows[: page.limit], (encode_offset(offset + page.limit) if more else None)


def page_as(
    m: ScopedMarts, model: type[M], sql: str, params: dict[str, Any], page: MartPageInput
) -> tuple[list[M], str | None]:
    """`page_rows` validated into `model`."""
    rows, cursor = page_rows(m, sql, params, page)
    return [model.model_validate(r) for r in rows], cursor


def payer_filter(where: str, params: dict[str, Any], payer: str | None, column: str = "payer_key") -> str:
    """`where` narrowed to one payer key (case-insensitive) when `payer` is given; adds $payer to `params`."""
    if not payer:
        return where
    params["payer"] = payer
    return f"{where} and upper({column}) = $payer"
