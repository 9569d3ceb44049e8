"""Base models for procedure inputs and outputs, and list pagination.

Fields are snake_case in Python and camelCase on the wire, as TypeScript
clients of tRPC expect; inputs accept either spelling.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from sqlalchemy import Select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput

T = TypeVar("T")


class Schema(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        extra="forbid",
        str_strip_whitespace=True,
    )


class Output(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class PageInput(Schema):
    limit: int = Field(default=50, ge=1, le=500, description="Page size (max 500)")
    cursor: str | None = Field(default=None, description="nextCursor of the previous page")


class Page(Output, Generic[T]):
    items: list[T]
    next_cursor: str | None = None


class Empty(Schema):
    """No input."""


class Ok(Output):
    ok: bool = True


def encode_cursor(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"id:{last_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, _, value = raw.partition(":")
        if kind != "id":
            raise ValueError
        return int(value)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this list") from None


def paginate(db: Session, stmt: Select[Any], id_column: Any, page: PageInput, to_item: Callable[[Any], Any]) -> Any:
    """Keyset pagination, newest first: stable under inserts, no OFFSET scans.

    Returns the page as a plain mapping (`items`, `next_cursor`); typed `Any` because the procedure's
    declared output model (`Page[...]`) is what validates it, in the executor.
    """
    after = decode_cursor(page.cursor)
    if after is not None:
        stmt = stmt.where(id_column < after)
    rows = list(db.scalars(stmt.order_by(id_column.desc()).limit(page.limit + 1)))
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    return {
        "items": [to_item(r) for r in rows],
        "next_cursor": encode_cursor(rows[-1].id) if more and rows else None,
    }
