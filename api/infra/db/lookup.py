"""One row by id within the caller's client, or NOT_FOUND; the optional equality filters of lists;
an id written as text (inside a reference such as an approved action's "draft:12").

The session's tenant filter (`tenant_filter.py`) makes another client's row simply missing, so a
caller guessing ids learns nothing (never FORBIDDEN). `for_update` locks the row for a move.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select, select
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


def where_given(stmt: Select[Any], *filters: tuple[Any, object | None]) -> Select[Any]:
    """`stmt` narrowed by `column == value` for each (column, value) whose value is given; None
    means the caller did not filter on that column (the optional filters of list procedures)."""
    for column, value in filters:
        if value is not None:
            stmt = stmt.where(column == value)
    return stmt
