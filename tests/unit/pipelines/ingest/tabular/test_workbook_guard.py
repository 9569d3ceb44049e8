"""The archive checks that run before any spreadsheet reader sees an uploaded workbook."""

from __future__ import annotations

import io
import zipfile

import pytest

from pipelines.ingest.tabular import SpreadsheetLimits, SpreadsheetRefused
from pipelines.ingest.tabular.workbook_guard import check_workbook
from tests.support.workbooks import corner_bomb, workbook

SMALL = SpreadsheetLimits(max_rows=100, max_columns=10, max_cells=500)


def test_a_workbook_within_the_limits_passes():
    check_workbook(workbook([("A1", "a"), ("J50", "b")], dimension="A1:J50"), SMALL)  # 500 cells of grid


@pytest.mark.parametrize(
    ("cells", "dimension", "expected"),
    [
        ([("A1", "a")], "A1:J101", "declares a range of 101 rows x 10 columns (to cell J101)"),
        ([("A1", "a")], "A1:K1", "declares a range of 1 rows x 11 columns (to cell K1)"),
        ([("A1", "a"), ("K2", "b")], None, "has cells up to 2 rows x 11 columns (to cell K2)"),
        ([("A1", "a"), ("A101", "b")], "A1:A1", "has cells up to 101 rows x 1 columns (to cell A101)"),
    ],
)
def test_declared_and_actual_extents_beyond_the_limits_are_refused(cells, dimension, expected):
    with pytest.raises(SpreadsheetRefused) as refused:
        check_workbook(workbook(cells, dimension=dimension), SMALL)
    assert expected in refused.value.message


def test_the_grid_area_counts_not_only_rows_and_columns():
    # 60 rows x 10 columns = 600 cells of grid, though rows and columns are each within their limits.
    with pytest.raises(SpreadsheetRefused, match="60 rows x 10 columns"):
        check_workbook(workbook([("A1", "a"), ("J60", "b")]), SMALL)


def test_the_corner_bomb_is_refused_with_the_defaults():
    with pytest.raises(SpreadsheetRefused, match="to cell XFD1048576"):
        check_workbook(corner_bomb(), SpreadsheetLimits())


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buf.getvalue()


def test_a_part_that_expands_too_much_is_refused_before_it_is_unpacked():
    bomb = _zip({"xl/worksheets/sheet1.xml": b" " * (4 * 1024 * 1024)})  # 4 MiB of spaces: ~1000x
    with pytest.raises(SpreadsheetRefused, match=r"expands [0-9,]+ times when unpacked; the limit is 200"):
        check_workbook(bomb, SpreadsheetLimits())


def test_the_total_unpacked_size_and_the_number_of_parts_are_limited():
    with pytest.raises(SpreadsheetRefused, match="unpacks to 3,000 bytes; the limit is 2,000"):
        check_workbook(
            _zip({"a.xml": b"a" * 1500, "b.xml": b"b" * 1500}), SpreadsheetLimits(max_uncompressed_bytes=2000)
        )
    with pytest.raises(SpreadsheetRefused, match="holds 3 parts; the limit is 2"):
        check_workbook(_zip({"a": b"", "b": b"", "c": b""}), SpreadsheetLimits(max_entries=2))


def test_a_tag_split_across_read_chunks_is_still_seen():
    # The far cell's tag straddles the 64 KiB read boundary of the scanner.
    padding = "x" * (64 * 1024 - 400)
    with pytest.raises(SpreadsheetRefused, match="to cell K2"):
        check_workbook(workbook([("A1", padding), ("K2", "b")]), SMALL)


def test_something_that_is_not_a_zip_is_refused():
    with pytest.raises(SpreadsheetRefused, match="not a readable zip archive"):
        check_workbook(b"PK\x03\x04 not really", SMALL)
