"""JSON-ready cell values: exact money strings, ISO dates."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any


def jsonable(value: Any) -> Any:
    """One cell as JSON: Decimal -> exact string, date -> ISO, lists element-wise."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_list"):
        return [jsonable(v) for v in value.to_list()]
    return value
