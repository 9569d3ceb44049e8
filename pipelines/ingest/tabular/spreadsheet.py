"""XLSX reading through ``pl.read_excel`` (calamine via fastexcel), in a child process.

The workbook is untrusted: a few kilobytes can ask the native reader for a grid
of billions of cells, and its allocator then aborts the whole process. So the
archive is checked against ``SpreadsheetLimits`` first (``workbook_guard``), and
the reader runs in a child process with a capped address space
(``sheet_child``): a crash there is a refusal of the file, never the death of the
service that received it.

The first sheet whose first rows contain a recognisable header wins. Sheets
are read without a header so every cell arrives as text and positions match
the sheet's rows (``row_number`` = spreadsheet row number).
"""

from __future__ import annotations

import io
import os
import signal
import struct
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from pipelines.ingest.tabular.errors import SpreadsheetRefused, TabularFileError
from pipelines.ingest.tabular.headers import MAX_HEADER_SCAN_ROWS, detect_header
from pipelines.ingest.tabular.raw import RawTable, select_mapped
from pipelines.ingest.tabular.workbook_guard import SpreadsheetLimits, check_workbook

_CHILD = Path(__file__).with_name("sheet_child.py")
_EXIT_UNREADABLE = 2


def read_sheets(data: bytes, limits: SpreadsheetLimits) -> dict[str, pl.DataFrame]:
    """Every sheet of the workbook, cells as text, read by a memory-capped child process."""
    check_workbook(data, limits)
    # One reader thread: fewer thread stacks inside the capped address space, and the API keeps its cores.
    env = {**os.environ, "POLARS_MAX_THREADS": "1", "RAYON_NUM_THREADS": "1"}
    try:
        # -P: the script's directory is not put on sys.path (its module names must not shadow others).
        done = subprocess.run(
            [sys.executable, "-P", str(_CHILD), str(limits.memory_limit_bytes)],
            input=data,
            capture_output=True,
            timeout=limits.timeout_seconds,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SpreadsheetRefused(
            f"reading the workbook took longer than {limits.timeout_seconds:.0f} s; export the sheet as CSV"
        ) from None
    if done.returncode == _EXIT_UNREADABLE:
        raise TabularFileError(done.stderr.decode("utf-8", "replace").strip()[:200] or "cannot read the XLSX workbook")
    if done.returncode != 0:
        raise SpreadsheetRefused(
            f"the spreadsheet reader stopped ({_exit_reason(done.returncode)}) within its memory limit of "
            f"{limits.memory_limit_bytes // (1024 * 1024):,} MiB; the workbook is too large or malformed. "
            "Export the sheet as CSV, or split it"
        )
    return _decode_sheets(done.stdout)


def _exit_reason(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


def _decode_sheets(payload: bytes) -> dict[str, pl.DataFrame]:
    sheets: dict[str, pl.DataFrame] = {}
    view = memoryview(payload)
    pos = 0
    while pos < len(view):
        (name_len,) = struct.unpack_from(">I", view, pos)
        name = bytes(view[pos + 4 : pos + 4 + name_len]).decode("utf-8")
        pos += 4 + name_len
        (ipc_len,) = struct.unpack_from(">Q", view, pos)
        pos += 8
        sheets[name] = pl.read_ipc(io.BytesIO(view[pos : pos + ipc_len]))
        pos += ipc_len
    return sheets


def read_xlsx(
    data: bytes,
    *,
    entity: str | None = None,
    column_map: Mapping[str, str] | None = None,
    limits: SpreadsheetLimits | None = None,
) -> RawTable:
    """Read the first sheet with a detected header into a ``RawTable``."""
    sheets = read_sheets(data, limits or SpreadsheetLimits())
    problems: list[str] = []
    for name, sheet in sheets.items():
        if sheet.height == 0:
            continue
        preview = [[cell or "" for cell in row] for row in sheet.head(MAX_HEADER_SCAN_ROWS).iter_rows()]
        try:
            header = detect_header(preview, entity=entity, column_map=column_map)
        except TabularFileError as exc:
            problems.append(f"sheet {name!r}: {exc}")
            continue
        body = sheet.slice(header.row_index + 1)
        # Keep only rows with at least one non-empty cell, numbering by sheet row.
        frame = select_mapped(body, header).with_columns(
            (pl.int_range(pl.len(), dtype=pl.Int64) + header.row_index + 2).alias("row_number")
        )
        non_empty = pl.any_horizontal(
            [pl.col(c).str.strip_chars().str.len_bytes() > 0 for c in frame.columns if c != "row_number"]
        )
        frame = frame.filter(non_empty.fill_null(False))
        return RawTable(frame=frame, header=header, header_line=header.row_index + 1, encoding="xlsx")
    raise TabularFileError(
        "no sheet has a recognisable header: " + "; ".join(problems) if problems else "the workbook is empty"
    )
