"""Base models for procedure inputs and outputs, and list pagination.

Fields are snake_case in Python and camelCase on the wire, as TypeScript
clients of tRPC expect; inputs accept either spelling.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Generic, TypeVar

import annotated_types
import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel
from sqlalchemy import Select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput

T = TypeVar("T")
OutT = TypeVar("OutT")
ItemT = TypeVar("ItemT")

#: What a BIGINT column holds (SQLite INTEGER and PostgreSQL bigint alike). An input integer outside
#: this range would overflow in the database (a 500); every input integer is bounded to it at least.
DB_INT_MAX = 2**63 - 1
DB_INT_MIN = -(2**63)
#: A database id in an input: 1..2^63-1.
DbId = Annotated[int, Field(ge=1, le=DB_INT_MAX)]
#: A date in an input: the span the business calendar is built for (and far from date overflow).
Day = Annotated[date, Field(ge=date(1900, 1, 1), le=date(2199, 12, 31))]
_BOUNDABLE = (int, int | None)


def _bound_to_database(annotation: Any, metadata: list[Any]) -> bool:
    """Add the database's integer bounds to a field's constraints where it has none; True if changed."""
    if annotation not in _BOUNDABLE:
        return False
    changed = False
    if not any(isinstance(m, annotated_types.Le | annotated_types.Lt) for m in metadata):
        metadata.append(annotated_types.Le(DB_INT_MAX))
        changed = True
    if not any(isinstance(m, annotated_types.Ge | annotated_types.Gt) for m in metadata):
        metadata.append(annotated_types.Ge(DB_INT_MIN))
        changed = True
    return changed


class Schema(BaseModel):
    """Base of every procedure input. Integer fields without their own bounds get the database's
    (``DB_INT_MIN``..``DB_INT_MAX``), so no input reaches the database out of range and the contract
    shows the bound; fields that need tighter ones declare them."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        from_attributes=True,
        extra="forbid",
        str_strip_whitespace=True,
    )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        # Every field is visited (no short-circuit): each one without bounds gets them.
        changed = [_bound_to_database(field.annotation, field.metadata) for field in cls.model_fields.values()]
        if any(changed):
            cls.model_rebuild(force=True)


class Output(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class Prevalidated(Generic[OutT]):
    """An answer validated against its output model and serialized to JSON once, then answered as those
    bytes: the executor embeds them in the envelope as they are (`orjson.Fragment`), with no validation,
    dump or encoding per call. The one way to serve a precomputed answer: for answers that are the same
    for every caller and costly to produce (`system.contract`, ~0.7 MB); build it once, keep it, return
    it. The procedure declares `-> Prevalidated[Model]`; its contract's output schema is `Model`'s.

    The bytes are exactly what the executor would have answered for `value` (same validation, same dump
    by alias, same encoder)."""

    __slots__ = ("json", "output_type")

    def __init__(self, output_type: type[OutT], value: OutT) -> None:
        adapter: TypeAdapter[OutT] = TypeAdapter(output_type)
        valid = adapter.validate_python(value, from_attributes=True)
        self.output_type = output_type
        self.json = orjson.dumps(adapter.dump_python(valid, mode="json", by_alias=True))


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
        # a cursor we made holds an id; any other number (2^64, -1) would overflow in the database (a 500)
        if kind != "id" or not value.isascii() or not value.isdigit() or len(value) > len(str(DB_INT_MAX)):
            raise ValueError
        if not 1 <= int(value) <= DB_INT_MAX:
            raise ValueError
        return int(value)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this list") from None


def paginate(
    db: Session, stmt: Select[Any], id_column: Any, page: PageInput, to_item: Callable[[Any], ItemT]
) -> Page[ItemT]:
    """Keyset pagination, newest first: stable under inserts, no OFFSET scans.

    Returns the page of what `to_item` made of each row, built without validation (`model_construct`):
    the procedure's declared output model (`Page[...]`) is what validates it, in the executor.
    """
    after = decode_cursor(page.cursor)
    if after is not None:
        stmt = stmt.where(id_column < after)
    rows = list(db.scalars(stmt.order_by(id_column.desc()).limit(page.limit + 1)))
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    result: Page[ItemT] = Page.model_construct(
        items=[to_item(r) for r in rows], next_cursor=encode_cursor(rows[-1].id) if more and rows else None
    )
    return result


#: A pattern's key (patterns.list: the first 16 hex digits of the sha256 of its five dimensions); the
#: interventions, evidence and syntheses against a pattern name it by this key.
PatternKey = Annotated[
    str, Field(pattern=r"^[0-9a-f]{16}$", description="A pattern's key, as listed by patterns.list (16 hex digits)")
]
#: A recovery or prevention action's key (actionTaxonomy), which interventions and syntheses name too.
ActionKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=40,
        pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
        description="An action's key: lower-case letters and digits joined by hyphens, e.g. appeal-level-1",
    ),
]
