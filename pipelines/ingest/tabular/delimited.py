"""CSV / TSV / pipe reading.

The header is found with the csv module on a prefix; the body is read by
Polars as strings (fast, multi-threaded). Polars rejects long rows and broken
quotes but cannot say where, and pads short rows silently, so in those cases
DuckDB's strict CSV reader re-reads the body to name the offending line.
Nothing from the offending line itself goes into the error (it may be PHI).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping

import duckdb
import polars as pl

from pipelines.ingest.decode import is_utf8, to_utf8_bytes, transcode_legacy
from pipelines.ingest.tabular.errors import TabularFileError
from pipelines.ingest.tabular.headers import MAX_HEADER_SCAN_ROWS, detect_header
from pipelines.ingest.tabular.raw import RawTable

_PREVIEW_BYTES = 256 * 1024
_DUCK_LINE = re.compile(r"CSV Error on Line: (\d+)")
_DUCK_COUNTS = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")


def read_delimited(
    data: bytes,
    *,
    delimiter: str,
    entity: str | None = None,
    column_map: Mapping[str, str] | None = None,
) -> RawTable:
    """Read delimited ``data`` into a ``RawTable`` (see module doc)."""
    # UTF-8 is judged from a prefix; Polars rejects invalid UTF-8 later, and then
    # the whole file is read again as Windows-1252 (cheaper than validating every file twice).
    utf8, encoding = to_utf8_bytes(data, validate=False)
    try:
        return _read_utf8(utf8, encoding, delimiter, entity, column_map)
    except _NotUtf8:
        utf8, encoding = transcode_legacy(utf8)
        return _read_utf8(utf8, encoding, delimiter, entity, column_map)


class _NotUtf8(Exception):
    """The body is not valid UTF-8 although its beginning was."""


def _read_utf8(
    utf8: bytes, encoding: str, delimiter: str, entity: str | None, column_map: Mapping[str, str] | None
) -> RawTable:
    preview_rows, record_end_lines = _preview(utf8, delimiter)
    header = detect_header(preview_rows, entity=entity, column_map=column_map)
    header_line = record_end_lines[header.row_index]
    width = len(preview_rows[header.row_index])
    body = _read_body(utf8, delimiter, width, header_line)
    row_numbers = _row_numbers(utf8, delimiter, header_line, body.height)
    _check_short_rows(body, utf8, delimiter, header_line, row_numbers)
    numbered = body.with_columns(
        pl.Series("row_number", row_numbers, dtype=pl.Int64)
        if row_numbers is not None
        else (pl.int_range(pl.len(), dtype=pl.Int64) + header_line + 1).alias("row_number")
    )
    if body.height and body.get_column("c0").null_count():
        # Blank lines come back as all-null records: drop them (their numbers go with them).
        numbered = numbered.filter(~pl.all_horizontal([pl.col(f"c{i}").is_null() for i in range(width)]))
    frame = numbered.select(
        *[pl.col(f"c{pos}").alias(field) for pos, field in header.columns.items()], pl.col("row_number")
    )
    return RawTable(frame=frame, header=header, header_line=header_line, encoding=encoding)


def _preview(utf8: bytes, delimiter: str) -> tuple[list[list[str]], list[int]]:
    """First records (for header detection) and the physical line each record ends on."""
    chunk = utf8[:_PREVIEW_BYTES]
    if len(utf8) > _PREVIEW_BYTES:
        chunk = chunk[: chunk.rfind(b"\n") + 1] or chunk
    text = chunk.decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False)
    rows: list[list[str]] = []
    ends: list[int] = []
    try:
        for row in reader:
            rows.append(row)
            ends.append(reader.line_num)
            if len(rows) >= MAX_HEADER_SCAN_ROWS:
                break
    except csv.Error as exc:
        raise TabularFileError(f"cannot read delimited text: {exc}", line=reader.line_num) from None
    if not rows:
        raise TabularFileError("the file has no rows")
    return rows, ends


def _read_body(utf8: bytes, delimiter: str, width: int, header_line: int) -> pl.DataFrame:
    """Body as strings with Polars (fast); DuckDB's strict reader finds the line when it is malformed."""
    names = [f"c{i}" for i in range(width)]
    try:
        frame = pl.read_csv(
            utf8,
            has_header=False,
            new_columns=names,
            separator=delimiter,
            quote_char='"',
            skip_lines=header_line,
            infer_schema=False,
            truncate_ragged_lines=False,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError:
        if not is_utf8(utf8):
            raise _NotUtf8 from None
        _strict_check(utf8, delimiter, width, header_line)
        raise TabularFileError("malformed delimited data (broken quoting or ragged rows)") from None
    if frame.height == 0:  # header only
        return pl.DataFrame(schema=dict.fromkeys(names, pl.String))
    if frame.width != width:
        _strict_check(utf8, delimiter, width, header_line)
        raise TabularFileError(f"expected {width} fields (as in the header), found {frame.width}")
    return frame


_MAX_LINES_CHECKED_IN_PYTHON = 100_000


def _check_short_rows(
    body: pl.DataFrame, utf8: bytes, delimiter: str, header_line: int, row_numbers: list[int] | None
) -> None:
    """Raise ``TabularFileError`` for a record with fewer fields than the header.

    Polars pads short records with nulls, so only records whose last field is
    empty (and are not blank lines) can be short. When records map one-to-one
    to lines and there are not too many candidates, those lines are re-split
    with the csv module; otherwise DuckDB's strict reader re-reads the body.
    """
    names = body.columns
    # null_count is cheap (kept with the column); only then look closer.
    if not body.height or not body.get_column(names[-1]).null_count():
        return
    last_empty = pl.col(names[-1]).is_null() & pl.any_horizontal([pl.col(n).is_not_null() for n in names])
    candidates = body.select(last_empty.arg_true()).to_series()
    if candidates.len() == 0:
        return
    if row_numbers is not None or candidates.len() > _MAX_LINES_CHECKED_IN_PYTHON:
        _strict_check(utf8, delimiter, len(names), header_line)
        return
    lines = utf8.split(b"\n")
    for index in candidates.to_list():
        line_number = header_line + 1 + index
        text = lines[line_number - 1].rstrip(b"\r").decode("utf-8")
        found = len(next(csv.reader([text], delimiter=delimiter)))
        if found != len(names):
            raise TabularFileError(f"expected {len(names)} fields (as in the header), found {found}", line=line_number)


def _strict_check(utf8: bytes, delimiter: str, width: int, header_line: int) -> None:
    """Run DuckDB's strict CSV reader; raise ``TabularFileError`` with the line if it rejects the body."""
    connection = duckdb.connect(":memory:")
    try:
        connection.read_csv(
            io.BytesIO(utf8),
            header=False,
            auto_detect=False,
            strict_mode=True,
            null_padding=False,
            delimiter=delimiter,
            quotechar='"',
            escapechar='"',
            skiprows=header_line,
            columns={f"c{i}": "VARCHAR" for i in range(width)},
        ).aggregate(", ".join(f"count(c{i})" for i in range(width))).fetchall()
    except duckdb.Error as exc:
        error = _file_error(str(exc))
        if error.line is not None and error.line > header_line:
            # DuckDB counts records (a quoted multi-line value is one); report the physical line.
            error = TabularFileError(
                error.message, _record_start_line(utf8, delimiter, header_line, error.line - header_line)
            )
        raise error from None
    finally:
        connection.close()


def _record_start_line(utf8: bytes, delimiter: str, header_line: int, record: int) -> int | None:
    """Physical line where the ``record``-th record after the header starts (blank lines count as records)."""
    reader = csv.reader(io.StringIO(utf8.decode("utf-8"), newline=""), delimiter=delimiter, strict=False)
    start, seen = 1, 0
    try:
        for _ in reader:
            if reader.line_num > header_line:
                seen += 1
                if seen == record:
                    return start
            start = reader.line_num + 1
    except csv.Error:
        pass
    # The csv module gave up before reaching it (e.g. an unterminated quote swallowed the rest).
    return start if seen + 1 == record else None


def _file_error(message: str) -> TabularFileError:
    """Turn a DuckDB CSV error into ours, dropping the quoted source line (PHI)."""
    line_match = _DUCK_LINE.search(message)
    line = int(line_match.group(1)) if line_match else None
    counts = _DUCK_COUNTS.search(message)
    if counts:
        reason = f"expected {counts.group(1)} fields (as in the header), found {counts.group(2)}"
    elif "unterminated quote" in message:
        reason = "quoted field is not closed (unterminated quote)"
    elif "unicode" in message.lower():
        reason = "invalid character encoding"
    else:
        reason = "malformed delimited row"
    return TabularFileError(reason, line=line)


def _row_numbers(utf8: bytes, delimiter: str, header_line: int, records: int) -> list[int] | None:
    """Source line of each record; None when it is simply header_line + 1 + index.

    The simple rule holds when no record spans lines and no blank line was
    skipped; otherwise the lines are recounted with the csv module.
    """
    total_lines = utf8.count(b"\n") + (0 if utf8.endswith(b"\n") else 1)
    if total_lines - header_line == records:
        return None
    text = utf8.decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    numbers: list[int] = []
    start = 1
    for _row in reader:
        if reader.line_num > header_line:  # blank lines too: Polars returns them as empty records
            numbers.append(start)
        start = reader.line_num + 1
    if len(numbers) != records:
        raise TabularFileError(f"row count mismatch while numbering lines ({len(numbers)} vs {records})")
    return numbers
