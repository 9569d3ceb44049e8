"""Format detection from file content (the file name is only a tie-breaker).

Order: empty -> X12 (ISA envelope, then the first ST01) -> XLSX (zip with an
``xl/`` entry) -> known binary signatures (rejected with a hint) -> JSON
(parses) -> delimited text (the delimiter that gives the most lines with the
same field count).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pipelines.ingest.decode import decode_bytes, decode_prefix

FormatKind = Literal["x12_835", "x12_837", "csv", "tsv", "psv", "xlsx", "json"]

_SNIFF_BYTES = 64 * 1024
_SAMPLE_LINES = 200
_NON_SPACE = re.compile(rb"\S")
# ISA, then a non-alphanumeric element separator, then ISA01 (two digits) and the same separator.
_ISA = re.compile(rb"ISA([^A-Za-z0-9\s])\d\d\1")
_DELIMITER_KINDS: dict[str, FormatKind] = {",": "csv", "\t": "tsv", "|": "psv", ";": "csv"}
_SUFFIX_DELIMITER = {".tsv": "\t", ".tab": "\t", ".psv": "|", ".pipe": "|", ".csv": ","}
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF", "PDF"),
    (b"\xd0\xcf\x11\xe0", "legacy Office file (.xls/.doc): save it as .xlsx or CSV"),
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"\x1f\x8b", "gzip archive"),
    (b"PK\x03\x04", "zip archive without a workbook (no xl/ entry)"),
    (b"II*\x00", "TIFF image"),
    (b"MM\x00*", "TIFF image"),
    (b"{\\rtf", "RTF document"),
)


class UnknownFormatError(ValueError):
    """The content is none of the formats we read."""


class EmptyFileError(UnknownFormatError):
    """The file has no bytes (or only whitespace)."""


@dataclass(frozen=True, slots=True)
class DetectedFormat:
    """What a file is, with details such as the delimiter, encoding or X12 version."""

    kind: FormatKind
    detail: dict[str, str] = field(default_factory=dict)


def detect_format(data: bytes, filename: str | None = None) -> DetectedFormat:
    """Detect the format of ``data``; raises ``UnknownFormatError`` naming what was seen."""
    if not data or _NON_SPACE.search(data) is None:  # a search stops early; strip() would copy the file
        raise EmptyFileError("the file is empty (0 bytes)" if not data else "the file contains only whitespace")
    x12 = _detect_x12(data)
    if x12 is not None:
        return x12
    if data.startswith(b"PK\x03\x04") and _is_xlsx(data):
        return DetectedFormat("xlsx")
    for signature, what in _SIGNATURES:
        if data.startswith(signature):
            raise UnknownFormatError(f"not X12, CSV, XLSX or JSON: starts with bytes {_hex(data)} (looks like {what})")
    text, encoding = decode_prefix(data, _SNIFF_BYTES)
    if "\x00" in text:
        raise UnknownFormatError(f"not X12, CSV, XLSX or JSON: binary content, starts with bytes {_hex(data)}")
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        return _detect_json(data, encoding)
    return _detect_delimited(text, encoding, filename, data)


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02X}" for b in data[:4])


def _detect_x12(data: bytes) -> DetectedFormat | None:
    head = data[:_SNIFF_BYTES]
    match = _ISA.search(head)
    if match is None:
        return None
    separator = re.escape(match.group(1))
    version = b""
    isa_fields = head[match.start() :].split(match.group(1), 17)
    if len(isa_fields) > 12:
        version = isa_fields[12].strip()
    st = re.search(rb"(?:^|[^A-Za-z0-9])ST" + separator + rb"(\d{3})" + separator, head[match.start() :])
    if st is None:
        raise UnknownFormatError("X12 interchange (ISA) without an ST segment in the first 64 KB")
    transaction = st.group(1).decode("ascii")
    if transaction not in ("835", "837"):
        raise UnknownFormatError(f"X12 transaction set {transaction} is not supported (only 835 and 837)")
    return DetectedFormat(
        "x12_835" if transaction == "835" else "x12_837",
        {"transaction_set": transaction, "isa_version": version.decode("ascii", errors="replace")},
    )


def _is_xlsx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name.startswith("xl/") for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


def _detect_json(data: bytes, encoding: str) -> DetectedFormat:
    try:
        text, encoding = decode_bytes(data)
        json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise UnknownFormatError(f"starts like JSON but does not parse{where}") from None
    return DetectedFormat("json", {"encoding": encoding})


def _detect_delimited(text: str, encoding: str, filename: str | None, data: bytes) -> DetectedFormat:
    lines = text.splitlines()
    if len(data) > _SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last line of a prefix may be cut
    best = delimiter_of(lines, _SUFFIX_DELIMITER.get(_suffix(filename)))
    if best is None:
        raise UnknownFormatError(
            f"not X12, CSV, XLSX or JSON: text without a consistent delimiter, starts with bytes {_hex(data)}"
        )
    return DetectedFormat(_DELIMITER_KINDS[best], {"delimiter": best, "encoding": encoding})


def delimiter_of(lines: Sequence[str], hint: str | None = None) -> str | None:
    """The delimiter (comma, tab, pipe or semicolon) that splits the most of the first 200 non-blank
    `lines` into the same number (at least 2) of fields, then the one giving more fields; `hint` (from
    the file name) wins a tie on lines. None when no candidate splits any line.

    Linear in the text given: one C-level csv pass per candidate. (csv.Sniffer's quote and delimiter
    regexes backtrack: quadratic on one long line, which is why it is not used for uploads.)"""
    sample = [line for line in lines if line.strip()][:_SAMPLE_LINES]
    scores: dict[str, tuple[int, int]] = {}
    for delimiter in _DELIMITER_KINDS:
        try:
            counts = Counter(len(row) for row in csv.reader(sample, delimiter=delimiter))
        except csv.Error:  # a field over the csv module's size limit: not this delimiter's table
            continue
        width, agreeing = max(counts.items(), key=lambda item: (item[1], item[0]), default=(0, 0))
        if width >= 2:
            scores[delimiter] = (agreeing, width)
    if not scores:
        return None
    best = max(scores, key=lambda d: (scores[d], d == hint))
    if hint in scores and scores[hint][0] == scores[best][0]:
        best = hint
    return best


def _suffix(filename: str | None) -> str:
    if not filename or "." not in filename:
        return ""
    return "." + filename.rsplit(".", 1)[1].lower()
