"""Minimal XLSX workbooks written by hand with zipfile: one sheet, inline-string cells.

Small enough to read in full: every byte of the archive is here, so a test that
builds a hostile workbook shows exactly what the attack is.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"'
    ' Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"'
    ' Target="worksheets/sheet1.xml"/></Relationships>'
)


def workbook(cells: Sequence[tuple[str, str]], *, dimension: str | None = None) -> bytes:
    """An XLSX whose only sheet holds `cells` ((reference, text), in sheet order) and declares `dimension`."""
    rows: dict[int, list[str]] = {}
    for ref, text in cells:
        row = int(re.sub(r"[A-Z]", "", ref))
        rows.setdefault(row, []).append(f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>')
    sheet_data = "".join(f'<row r="{n}">{"".join(cs)}</row>' for n, cs in rows.items())
    dim = f'<dimension ref="{dimension}"/>' if dimension else ""
    sheet = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"{dim}<sheetData>{sheet_data}</sheetData></worksheet>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return buf.getvalue()


def corner_bomb() -> bytes:
    """The attack: two cells, at A1 and at the last cell a sheet can have (XFD1048576), and the range
    declared to match. About 1.5 KB; a reader that sizes its grid from it asks for 17 billion cells."""
    return workbook([("A1", "x"), ("XFD1048576", "y")], dimension="A1:XFD1048576")
