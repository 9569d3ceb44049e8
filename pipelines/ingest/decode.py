"""Byte-to-text decoding for exports from Windows and Excel tools.

Order: BOM (UTF-8, UTF-16 LE/BE, UTF-32), strict UTF-8, then Windows-1252,
and Latin-1 for the five bytes cp1252 leaves undefined. The result never
keeps a BOM.
"""

from __future__ import annotations

import codecs

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """Return (encoding, bytes of BOM to skip) for ``data``."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    head = data[:4096]
    # UTF-16 without BOM: ASCII text leaves every other byte zero.
    if len(head) >= 4 and head.count(0) * 3 > len(head):
        even_zeros = head[0::2].count(0)
        odd_zeros = head[1::2].count(0)
        if odd_zeros > even_zeros * 4:
            return "utf-16-le", 0
        if even_zeros > odd_zeros * 4:
            return "utf-16-be", 0
    if data.isascii():  # far cheaper than a trial decode, and the common case
        return "utf-8", 0
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            data.decode("cp1252")
        except UnicodeDecodeError:
            return "latin-1", 0
        return "cp1252", 0
    return "utf-8", 0


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode ``data`` to text; returns (text, encoding name used)."""
    encoding, skip = sniff_encoding(data)
    try:
        return data[skip:].decode(encoding), encoding
    except UnicodeDecodeError as exc:
        raise UnicodeDecodeError(
            exc.encoding, exc.object, exc.start, exc.end, f"not valid {encoding} at byte {exc.start + skip}"
        ) from None


def decode_prefix(data: bytes, limit: int = 65536) -> tuple[str, str]:
    """Decode only the first ``limit`` bytes (for sniffing); tolerant of a cut character."""
    encoding, skip = sniff_encoding(data[: max(limit, 8)])
    chunk = data[skip : skip + limit]
    if encoding == "utf-8" and len(data) > limit:
        # The full-file check may disagree, but a prefix is only for sniffing.
        return chunk.decode("utf-8", errors="ignore"), encoding
    return chunk.decode(encoding, errors="ignore"), encoding


def to_utf8_bytes(data: bytes, *, validate: bool = True) -> tuple[bytes, str]:
    """UTF-8 bytes without BOM for ``data`` (no copy when it already is UTF-8).

    ``validate=False`` decides UTF-8 from the first 64 KB only (for callers
    whose parser rejects invalid UTF-8 itself and then ask ``transcode_legacy``).
    """
    if not validate and not data.startswith(tuple(bom for bom, _ in _BOMS)):
        head = data[:65536]
        # NUL bytes are valid UTF-8 but mean UTF-16 without BOM: leave that to sniff_encoding.
        if b"\x00" not in head and _prefix_is_utf8(head, cut=len(data) > len(head)):
            return data, "utf-8"
    encoding, skip = sniff_encoding(data)
    if encoding == "utf-8":
        return (data[skip:] if skip else data), encoding
    text, encoding = decode_bytes(data)
    return text.encode("utf-8"), encoding


def _prefix_is_utf8(head: bytes, *, cut: bool) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the slice is not an error.
        return cut and exc.start >= len(head) - 3
    return True


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def transcode_legacy(data: bytes) -> tuple[bytes, str]:
    """Windows-1252 (Latin-1 for its undefined bytes) to UTF-8."""
    try:
        return data.decode("cp1252").encode("utf-8"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1").encode("utf-8"), "latin-1"
