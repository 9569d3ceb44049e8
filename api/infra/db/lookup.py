"""One row by id within the caller's client, or NOT_FOUND; the optional filters of lists (equality,
inclusive ranges, whole days of a timestamp, one-of lists); an id written as text (inside a reference such as an approved action's "draft:12").

The session's tenant filter (`tenant_filter.py`) makes another client's row simply missing, so a
caller guessing ids learns nothing (never FORBIDDEN). `for_update` locks the row for a move.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeAlias, TypeVar

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.orm import Session

from api.core.errors import not_found
from api.infra.db.base import IdMixin

RowT = TypeVar("RowT", bound=IdMixin)

#: The largest id a BIGINT primary key holds (SQLite INTEGER and PostgreSQL bigint alike); a larger
#: number bound into a statement overflows in the driver (a 500), so text ids are checked first.
ID_MAX = 2**63 - 1
_ID_DIGITS = len(str(ID_MAX))


def parse_id(text: str) -> int | None:
    """The id a text names, or None: canonical decimal digits only (no sign, spaces, underscores or
    leading zeros, so one id has one spelling) within 1..ID_MAX. Linear in the text, and the digit
    count is checked before converting, so a long run of digits costs nothing."""
    if not text.isascii() or not text.isdigit() or len(text) > _ID_DIGITS or text.startswith("0"):
        return None
    ident = int(text)
    return ident if ident <= ID_MAX else None


def get_by_id(db: Session, model: type[RowT], ident: int, what: str, *, for_update: bool = False) -> RowT:
    """The `model` row with this id in the caller's client; NOT_FOUND naming `what` otherwise."""
    stmt = select(model).where(model.id == ident)
    if for_update:
        stmt = stmt.with_for_update()
    row = db.scalar(stmt)
    if row is None:
        raise not_found(what, ident)
    return row


@dataclass(frozen=True)
class Between:
    """`low <= column <= high`, each bound applied only when given (dates, amounts, timestamps)."""

    column: Any
    low: object | None = None
    high: object | None = None


@dataclass(frozen=True)
class OnDays:
    """A timestamp column within whole UTC days, both given days included: `first` from its midnight,
    `last` up to (not including) the next day's midnight; each bound applied only when given."""

    column: Any
    first: date | None = None
    last: date | None = None


@dataclass(frozen=True)
class OneOf:
    """`column IN values` when values are given (None: no filter; an empty collection matches nothing)."""

    column: Any
    values: Collection[object] | None


#: One optional filter of a list: a (column, value) pair for equality, or a range or one-of list.
Filter: TypeAlias = tuple[Any, object | None] | Between | OnDays | OneOf


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def _conditions(given: Filter) -> list[ColumnElement[bool]]:
    match given:
        case Between(column, low, high):
            return [
                c
                for c in (None if low is None else column >= low, None if high is None else column <= high)
                if c is not None
            ]
        case OnDays(column, first, last):
            return [
                c
                for c in (
                    None if first is None else column >= _midnight(first),
                    None if last is None else column < _midnight(last + timedelta(days=1)),
                )
                if c is not None
            ]
        case OneOf(column, values):
            return [] if values is None else [column.in_(list(values))]
        case (column, value):
            return [] if value is None else [column == value]
    raise TypeError(f"not a list filter: {given!r}")


def where_given(stmt: Select[Any], *filters: Filter) -> Select[Any]:
    """`stmt` narrowed by each filter whose value is given; None means the caller did not filter on
    that column (the optional filters of list procedures). A (column, value) pair is equality,
    `Between` inclusive bounds, `OnDays` whole days of a timestamp, `OneOf` a list of values."""
    for given in filters:
        for condition in _conditions(given):
            stmt = stmt.where(condition)
    return stmt
