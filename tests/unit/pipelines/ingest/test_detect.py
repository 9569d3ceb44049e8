"""Format detection from content."""

from __future__ import annotations

import io
import json
import zipfile

import polars as pl
import pytest

from pipelines.ingest.detect import EmptyFileError, UnknownFormatError, detect_format
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.835")), ids=lambda p: p.name)
def test_every_835_fixture(path):
    detected = detect_format(path.read_bytes(), path.name)
    assert detected.kind == "x12_835"
    assert detected.detail["transaction_set"] == "835"


def test_837_fixture():
    path = FIXTURES / "lfh_5010_837p_demo.837"
    assert detect_format(path.read_bytes()).kind == "x12_837"


def test_x12_other_transaction_set_is_named():
    data = b"ISA*00*          *00*          *ZZ*A*ZZ*B*240101*1200*^*00501*000000001*0*P*:~GS*HS*A*B*20240101*1200*1*X*005010X279A1~ST*270*0001~"
    with pytest.raises(UnknownFormatError, match="270"):
        detect_format(data)


def test_csv_tsv_psv_semicolon():
    rows = ["Account Number,Billed Amount,Service Date", 'A1,"$1,234.00",01/02/2024', "A2,5.00,01/03/2024"]
    assert detect_format("\n".join(rows).encode()).detail["delimiter"] == ","
    assert (
        detect_format("\n".join(r.replace(",", "\t").replace('"$1\t234.00"', "$1,234.00") for r in rows).encode()).kind
        == "tsv"
    )
    assert detect_format(b"a|b|c\n1|2,5|3\n4|5|6\n").kind == "psv"
    semicolon = detect_format(b"a;b;c\n1;2,5;3\n4;5;6\n")
    assert semicolon.kind == "csv" and semicolon.detail["delimiter"] == ";"


def test_csv_with_utf16_bom():
    detected = detect_format("Account,Billed\nA1,2.00\nA2,3.00\n".encode("utf-16"))
    assert detected.kind == "csv" and detected.detail["encoding"].startswith("utf-16")


def test_json_array_and_rows_object():
    assert detect_format(json.dumps([{"a": 1}]).encode()).kind == "json"
    assert detect_format(b'  {"rows": []}').kind == "json"
    with pytest.raises(UnknownFormatError, match="does not parse"):
        detect_format(b'[{"a": 1},')


def test_xlsx_by_zip_and_xl_entry():
    buffer = io.BytesIO()
    pl.DataFrame({"Account": ["A1"], "Billed": ["1.00"]}).write_excel(buffer)
    assert detect_format(buffer.getvalue(), "whatever.bin").kind == "xlsx"


def test_plain_zip_is_not_xlsx():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("readme.txt", "hi")
    with pytest.raises(UnknownFormatError, match="zip archive"):
        detect_format(buffer.getvalue())


def test_pdf_is_named():
    with pytest.raises(UnknownFormatError, match=r"starts with bytes 25 50 44 46 \(looks like PDF\)"):
        detect_format(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj")


def test_binary_and_prose_are_unknown():
    with pytest.raises(UnknownFormatError, match="binary"):
        detect_format(b"\x00\x01\x02\x03" * 10)
    with pytest.raises(UnknownFormatError, match="consistent delimiter"):
        detect_format(b"Dear billing office\nplease find attached\n")


def test_empty_file():
    with pytest.raises(EmptyFileError, match="empty"):
        detect_format(b"")
    with pytest.raises(EmptyFileError):
        detect_format(b"  \n ")
