"""Locate the ISA header and read the interchange delimiters from it.

The ISA is nominally fixed width, but real files pad it differently, so the
delimiters are found by walking the element separator rather than by byte
offsets: the element separator is the byte right after ``ISA``, ISA16 (the
component separator) is the single byte after the 16th element separator and
the segment terminator is the byte after ISA16.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.ingest.x12.errors import X12ParseError

_ISA_ELEMENTS = 16
# An ISA is about 106 bytes; allow generous padding before giving up.
_ISA_MAX_LEN = 512
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Delimiters:
    """The four X12 separators of one interchange (each a single character)."""

    element: str
    component: str
    repetition: str
    segment: str


def _is_separator_byte(b: int) -> bool:
    # Separators are printable punctuation or control bytes, never letters or digits.
    ch = chr(b)
    return b < 128 and not ch.isalnum() and ch != " "


def find_isa(data: bytes, source: str) -> tuple[int, Delimiters]:
    """Return the offset of the first ISA segment and its delimiters.

    Anything before the ISA (a UTF-8 BOM, a prose preamble) is skipped. Raises
    X12ParseError if there is no usable ISA header.
    """
    if not data:
        raise X12ParseError(source, "empty input (0 bytes); expected an ISA interchange header")
    start = 0
    while True:
        pos = data.find(b"ISA", start)
        if pos < 0:
            raise X12ParseError(source, "no ISA interchange header found", expected="ISA")
        preceded_ok = pos == 0 or not chr(data[pos - 1]).isalnum() or data[pos - 3 : pos] == _BOM
        if preceded_ok and pos + 3 < len(data) and _is_separator_byte(data[pos + 3]):
            return pos, _read_delimiters(data, pos, source)
        start = pos + 1


def _read_delimiters(data: bytes, pos: int, source: str) -> Delimiters:
    sep = data[pos + 3]
    head = data[pos : pos + _ISA_MAX_LEN]
    seps_seen = 0
    i = 3
    isa11_start = None
    while i < len(head):
        if head[i] == sep:
            seps_seen += 1
            if seps_seen == 11:
                isa11_start = i + 1
            if seps_seen == _ISA_ELEMENTS:
                break
        i += 1
    if seps_seen < _ISA_ELEMENTS or i + 2 >= len(head):
        raise X12ParseError(
            source,
            "ISA header is truncated: expected 16 elements followed by a segment terminator",
            segment_number=1,
            segment_id="ISA",
            expected="16 ISA elements",
        )
    component = head[i + 1]
    terminator = head[i + 2]
    repetition = head[isa11_start] if isa11_start is not None else None
    for name, b in (("component separator (ISA16)", component), ("segment terminator", terminator)):
        if not _is_separator_byte(b) or b == sep:
            raise X12ParseError(
                source,
                f"ISA header has an invalid {name}",
                segment_number=1,
                segment_id="ISA",
                expected=f"a non-alphanumeric {name} distinct from the element separator",
            )
    if component == terminator:
        raise X12ParseError(
            source,
            "ISA header uses the same character as component separator and segment terminator",
            segment_number=1,
            segment_id="ISA",
            expected="distinct separators",
        )
    rep_char = chr(repetition) if repetition is not None and not chr(repetition).isalnum() else ""
    return Delimiters(
        element=chr(sep),
        component=chr(component),
        repetition=rep_char,
        segment=chr(terminator),
    )
