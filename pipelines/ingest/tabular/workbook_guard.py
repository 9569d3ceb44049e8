"""Checks an XLSX archive against size limits before any spreadsheet reader sees it.

A workbook is a zip of XML parts. A reader sizes its cell grid from the
declared ``<dimension ref>`` and the cell references it meets, so a 1.5 KB file
with cells at A1 and XFD1048576 asks for 17 billion cells and the native
allocator aborts the process. This module reads the archive's directory and
streams each XML part through a tag scanner (a bounded window, never the whole
part in memory), and refuses the workbook with a message naming the limit
when the archive, a sheet's declared range or its actual cell references go
beyond ``SpreadsheetLimits``. Nothing here keeps cell values.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from pipelines.ingest.tabular.errors import SpreadsheetRefused

_READ_CHUNK = 64 * 1024
# A single tag longer than this is not a spreadsheet any tool writes; refusing keeps the window bounded.
_MAX_TAG_BYTES = 1024 * 1024
# Ratios are only meaningful for parts big enough to matter; a tiny part compresses however it likes.
_RATIO_FLOOR_BYTES = 1024 * 1024

_TAG = re.compile(rb"<(/?)(?:[A-Za-z_][\w.-]*:)?(row|c|dimension)(?=[\s/>])([^>]*)>")
_ATTR_R = re.compile(rb"""\sr\s*=\s*["']([A-Za-z]{0,3})(\d{0,8})["']""")
_ATTR_REF = re.compile(rb"""\sref\s*=\s*["']\$?([A-Za-z]{1,3})\$?(\d{1,8})(?::\$?([A-Za-z]{1,3})\$?(\d{1,8}))?["']""")


@dataclass(frozen=True)
class SpreadsheetLimits:
    """What one uploaded workbook may hold. The defaults fit any real export with room to spare."""

    max_rows: int = 1_000_000
    max_columns: int = 1_000
    max_cells: int = 10_000_000  # the grid a reader allocates: rows x columns of the used range
    max_uncompressed_bytes: int = 512 * 1024 * 1024  # all parts together, as the archive declares them
    max_entries: int = 10_000
    max_compression_ratio: int = 200  # per part above 1 MiB; real sheets compress ~5-30x
    memory_limit_bytes: int = 2 * 1024 * 1024 * 1024  # address space of the reader's child process
    timeout_seconds: float = 300.0


def column_number(letters: bytes) -> int:
    """A1-style column letters to a 1-based number (A=1, XFD=16384)."""
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ch - 64)
    return n


def column_letters(number: int) -> str:
    out = ""
    while number > 0:
        number, rem = divmod(number - 1, 26)
        out = chr(65 + rem) + out
    return out


@dataclass
class _PartExtent:
    """The grid one XML part asks for: from its declared dimension and from the cells it holds."""

    declared_rows: int = 0
    declared_columns: int = 0
    rows: int = 0
    columns: int = 0
    cells: int = 0
    _row: int = 0  # current row number (explicit or counted)
    _col: int = 0  # current column within the row (explicit or counted)

    def tag(self, closing: bool, name: bytes, attrs: bytes) -> None:
        if closing:
            return
        if name == b"dimension":
            m = _ATTR_REF.search(b" " + attrs)
            if m:
                last_col, last_row = (m.group(3), m.group(4)) if m.group(3) else (m.group(1), m.group(2))
                self.declared_columns = max(self.declared_columns, column_number(last_col))
                self.declared_rows = max(self.declared_rows, int(last_row))
            return
        m = _ATTR_R.search(b" " + attrs)
        if name == b"row":
            self._row = int(m.group(2)) if m and m.group(2) else self._row + 1
            self._col = 0
            self.rows = max(self.rows, self._row)
            return
        # A cell: its reference when given, else the next position after the previous cell.
        self.cells += 1
        if m and m.group(1):
            self._col = column_number(m.group(1))
            if m.group(2):
                self._row = int(m.group(2))
        else:
            self._col += 1
        self.rows = max(self.rows, self._row)
        self.columns = max(self.columns, self._col)


def check_workbook(data: bytes, limits: SpreadsheetLimits) -> None:
    """Refuse (``SpreadsheetRefused``) a workbook whose archive or sheets go beyond ``limits``."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        raise SpreadsheetRefused("the XLSX file is not a readable zip archive") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > limits.max_entries:
            raise SpreadsheetRefused(
                f"the workbook holds {len(entries):,} parts; the limit is {limits.max_entries:,}. "
                "Save a copy with only the sheet to import, or export it as CSV"
            )
        declared = sum(e.file_size for e in entries)
        if declared > limits.max_uncompressed_bytes:
            raise SpreadsheetRefused(
                f"the workbook unpacks to {declared:,} bytes; the limit is {limits.max_uncompressed_bytes:,}. "
                "Split it into smaller workbooks or export the sheet as CSV"
            )
        for entry in entries:
            _check_ratio(entry, limits)
        for entry in entries:
            if entry.filename.lower().endswith(".xml") and not entry.is_dir():
                _check_part(archive, entry, limits)


def _check_ratio(entry: zipfile.ZipInfo, limits: SpreadsheetLimits) -> None:
    if entry.file_size < _RATIO_FLOOR_BYTES:
        return
    ratio = entry.file_size / max(entry.compress_size, 1)
    if ratio > limits.max_compression_ratio:
        raise SpreadsheetRefused(
            f"the workbook part {entry.filename!r} expands {ratio:,.0f} times when unpacked; the limit is "
            f"{limits.max_compression_ratio}. Such a file is built to exhaust memory, not exported by a spreadsheet "
            "program; re-export the sheet as CSV"
        )


def _check_part(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, limits: SpreadsheetLimits) -> None:
    """Stream one XML part through the tag scanner, refusing as soon as its grid is too big."""
    extent = _PartExtent()
    window = b""
    read = 0
    try:
        with archive.open(entry) as fh:
            while chunk := fh.read(_READ_CHUNK):
                read += len(chunk)
                if read > limits.max_uncompressed_bytes:
                    raise SpreadsheetRefused(
                        f"the workbook part {entry.filename!r} unpacks beyond {limits.max_uncompressed_bytes:,} bytes"
                    )
                window += chunk
                window = _scan(window, extent)
                _check_extent(entry.filename, extent, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError):
        raise SpreadsheetRefused(f"the workbook part {entry.filename!r} cannot be unpacked") from None
    _check_extent(entry.filename, extent, limits)


def _scan(window: bytes, extent: _PartExtent) -> bytes:
    """Feed every complete tag of `window` to `extent`; return the unfinished tail (from its last '<')."""
    end = 0
    for m in _TAG.finditer(window):
        extent.tag(m.group(1) == b"/", m.group(2), m.group(3))
        end = m.end()
    tail_start = window.rfind(b"<", end)
    if tail_start == -1 or window.find(b">", tail_start) != -1:
        return b""
    tail = window[tail_start:]
    if len(tail) > _MAX_TAG_BYTES:
        raise SpreadsheetRefused("the workbook holds an XML tag longer than 1 MiB; it is not a spreadsheet export")
    return tail


def _check_extent(part: str, extent: _PartExtent, limits: SpreadsheetLimits) -> None:
    for what, rows, columns in (
        ("declares a range of", extent.declared_rows, extent.declared_columns),
        ("has cells up to", extent.rows, extent.columns),
    ):
        if rows > limits.max_rows or columns > limits.max_columns or rows * columns > limits.max_cells:
            raise SpreadsheetRefused(
                f"the sheet {part!r} {what} {rows:,} rows x {columns:,} columns "
                f"(to cell {column_letters(columns)}{rows}); the limits are {limits.max_rows:,} rows, "
                f"{limits.max_columns:,} columns and {limits.max_cells:,} cells. Delete the empty rows and columns "
                "beyond the data (or clear stray cells far from it) and save again, or export the sheet as CSV"
            )
    if extent.cells > limits.max_cells:
        raise SpreadsheetRefused(
            f"the sheet {part!r} holds more than {limits.max_cells:,} cells; split it or export it as CSV"
        )
