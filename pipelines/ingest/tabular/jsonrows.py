"""JSON reading: an array of objects, or ``{"rows": [...]}``.

Numbers are kept as their source text (no float rounding of money); lists
of scalars become comma-joined text (e.g. RARC lists). ``row_number`` is the
1-based position of the object in the array.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import polars as pl

from pipelines.ingest.decode import decode_bytes
from pipelines.ingest.tabular.errors import TabularFileError
from pipelines.ingest.tabular.headers import detect_header
from pipelines.ingest.tabular.raw import RawTable


def _scalar_text(value: object, item: int, key: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    raise TabularFileError(f"item {item}, key {key!r}: nested objects are not supported")


def read_json_rows(data: bytes, *, entity: str | None = None, column_map: Mapping[str, str] | None = None) -> RawTable:
    """Read JSON records into a ``RawTable``."""
    text, encoding = decode_bytes(data)
    try:
        document = json.loads(text, parse_float=str, parse_int=str)
    except json.JSONDecodeError as exc:
        raise TabularFileError(f"invalid JSON at column {exc.colno}: {exc.msg}", line=exc.lineno) from None
    if isinstance(document, dict) and isinstance(document.get("rows"), list):
        document = document["rows"]
    if not isinstance(document, list):
        raise TabularFileError('JSON must be an array of objects or {"rows": [...]}')
    keys: dict[str, None] = {}
    for index, item in enumerate(document, start=1):
        if not isinstance(item, dict):
            raise TabularFileError(f"item {index} is a {type(item).__name__}, not an object")
        keys.update(dict.fromkeys(item))
    names = list(keys)
    header = detect_header([names], entity=entity, column_map=column_map)
    columns = {
        field: [_scalar_text(item.get(names[pos]), index, names[pos]) for index, item in enumerate(document, start=1)]
        for pos, field in header.columns.items()
    }
    frame = pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String)).with_columns(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("row_number")
    )
    return RawTable(frame=frame, header=header, header_line=0, encoding=encoding)
