"""XLSX reading through ``pl.read_excel`` (calamine via fastexcel).

The first sheet whose first rows contain a recognisable header wins. Sheets
are read without a header so every cell arrives as text and positions match
the sheet's rows (``row_number`` = spreadsheet row number).
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import polars as pl

from pipelines.ingest.tabular.errors import TabularFileError
from pipelines.ingest.tabular.headers import MAX_HEADER_SCAN_ROWS, detect_header
from pipelines.ingest.tabular.raw import RawTable, select_mapped


def read_xlsx(data: bytes, *, entity: str | None = None, column_map: Mapping[str, str] | None = None) -> RawTable:
    """Read the first sheet with a detected header into a ``RawTable``."""
    try:
        sheets = pl.read_excel(
            io.BytesIO(data),
            sheet_id=0,
            has_header=False,
            drop_empty_rows=False,
            drop_empty_cols=False,
            raise_if_empty=False,
        )
    except Exception as exc:  # noqa: BLE001 - calamine raises several types; none carry cell values
        raise TabularFileError(f"cannot read the XLSX workbook ({type(exc).__name__})") from None
    problems: list[str] = []
    for name, raw_sheet in sheets.items():
        if raw_sheet.height == 0:
            continue
        sheet = raw_sheet.select(pl.all().cast(pl.String))
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
