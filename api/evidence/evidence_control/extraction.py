"""Text, page count and image size of an accepted document (pure, no I/O beyond the bytes given).

- PDF: the text layer of every page (pypdf), read from the reader `detection.detect` opened and
  checked (a PDF is parsed once); a scanned PDF without one has no text.
- DOCX: the paragraphs of ``word/document.xml``, streamed through the capped zip stream by the
  entity-free expat parser (`detection.xml_events`: no tree is built, elements are counted against
  ``Limits.max_docx_elements`` and the parse stops at the cap); the page count from
  ``docProps/app.xml`` when the editor wrote it.
- Plain text: decoded as detected (UTF-8, else Windows-1252).
- Images: page count (TIFF pages, else 1) and width x height; their text is what the OCR engine
  returns, and the only engine today is `no_ocr`, which returns None. A real engine is a callable
  matching `OcrEngine`, passed to `extract` (the extension point; `reading.read_document`, which
  runs in the capped child, would pass it).

Text is normalised to ``\\n`` line endings. More than ``Limits.max_text_chars`` characters is refused
(``EVIDENCE_MAX_TEXT_CHARS``), found out while reading: PDF pages and DOCX runs stop being read as soon
as the cap is passed.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass
from typing import Any, Protocol

from defusedxml import ElementTree

from api.core.errors import InvalidInput
from api.evidence.evidence_control import detection
from api.evidence.evidence_control.detection import Detected, Limits

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_APP = "{http://schemas.openxmlformats.org/officeDocument/2006/extended-properties}"
_MAX_TIFF_PAGES = 10_000
_MAX_APP_XML_BYTES = 1_048_576  # docProps/app.xml only gives the page count: a big one is skipped


class OcrEngine(Protocol):
    """Reads the text of an image (or an image-only PDF page set); None when it cannot."""

    def __call__(self, data: bytes, media_type: str, /) -> str | None: ...


def no_ocr(data: bytes, media_type: str, /) -> str | None:
    """The OCR engine of this release: none. Images are stored with their size and page count only."""
    return None


@dataclass(frozen=True)
class Extracted:
    text: str | None  # None: no text could be read (an image, a PDF without a text layer)
    page_count: int | None
    width: int | None = None
    height: int | None = None


def too_much_text(limit: int) -> InvalidInput:
    return detection.over_cap("holds", f"more than {limit:,} characters of text", limit, "max_text_chars")


def extract(data: bytes, detected: Detected, limits: Limits, ocr: OcrEngine = no_ocr) -> Extracted:
    media = detected.media_type
    if media == detection.PDF:
        reader = detected.pdf if detected.pdf is not None else detection.check_pdf(data, limits.max_pdf_pages)
        return _pdf(reader, limits.max_text_chars)
    if media == detection.DOCX:
        archive = detected.archive if detected.archive is not None else detection.check_docx(data, limits)
        return _docx(archive, limits)
    if media == detection.TEXT:
        return Extracted(_text(data, detected.encoding or "utf-8", limits.max_text_chars), None)
    width, height, pages = image_geometry(data, media)
    return Extracted(_capped(_clean(ocr(data, media)), limits.max_text_chars), pages, width, height)


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return text if text.strip() else None


def _capped(text: str | None, limit: int) -> str | None:
    if text is not None and len(text) > limit:
        raise too_much_text(limit)
    return text


def _text(data: bytes, encoding: str, limit: int) -> str | None:
    if len(data) // 4 > limit:  # even 4-byte characters would be too many: no need to decode
        raise too_much_text(limit)
    return _capped(_clean(data.decode(encoding).lstrip("\ufeff")), limit)


def _pdf(reader: Any, limit: int) -> Extracted:
    """The text of every page, stopping as soon as the cap is passed (the page count was checked, on
    the page tree, before the reader was handed over)."""
    parts: list[str] = []
    size = 0
    for page in reader.pages:
        try:
            text = page.extract_text() or ""
        except Exception:  # noqa: BLE001 - a page whose text cannot be read contributes none
            text = ""
        parts.append(text)
        size += len(text) + 2
        if size > limit + 2:
            raise too_much_text(limit)
    return Extracted(_capped(_clean("\n\n".join(parts)), limit), len(reader.pages))


_P, _T, _TAB, _BR, _CR = (f"{_W} {local}" for local in ("p", "t", "tab", "br", "cr"))


class _Paragraphs:
    """Collects the text of ``w:p`` paragraphs from the XML stream: ``w:t`` text, ``w:tab`` as a tab,
    ``w:br``/``w:cr`` as a line break. A paragraph nested in another (a text box) is a paragraph of its
    own, after the one holding it; its text is not repeated in the outer one. A finished paragraph is
    kept as one string: memory follows the text, not the XML."""

    def __init__(self, limit: int) -> None:
        self.paragraphs: list[str] = []
        self._open: list[tuple[int, list[str]]] = []  # (index, pieces) of paragraphs being read
        self._in_text = 0
        self._chars = 0
        self._limit = limit

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _P:
            self._open.append((len(self.paragraphs), []))
            self.paragraphs.append("")
        elif name == _T:
            self._in_text += 1
        elif name in (_TAB, _BR, _CR):
            self._add("\t" if name == _TAB else "\n")

    def end(self, name: str) -> None:
        if name == _P and self._open:
            index, pieces = self._open.pop()
            self.paragraphs[index] = "".join(pieces)
        elif name == _T:
            self._in_text -= 1

    def text(self, data: str) -> None:
        if self._in_text > 0:
            self._add(data)

    def _add(self, piece: str) -> None:
        if not self._open:
            return
        self._chars += len(piece)
        if self._chars > self._limit:
            raise too_much_text(self._limit)
        self._open[-1][1].append(piece)


def _docx(archive: zipfile.ZipFile, limits: Limits) -> Extracted:
    paragraphs = _Paragraphs(limits.max_text_chars)
    budget = detection.ElementBudget(limits.max_docx_elements)
    detection.xml_events(archive, "word/document.xml", limits.archive, budget, paragraphs)
    text = "\n".join(paragraphs.paragraphs)
    return Extracted(_capped(_clean(text), limits.max_text_chars), _docx_pages(archive, limits))


def _docx_pages(archive: zipfile.ZipFile, limits: Limits) -> int | None:
    try:
        info = archive.getinfo("docProps/app.xml")
    except KeyError:
        return None
    if info.file_size > _MAX_APP_XML_BYTES:
        return None
    try:
        pages = ElementTree.fromstring(detection.read_entry(archive, "docProps/app.xml", limits.archive)).find(
            f"{_APP}Pages"
        )
        return int(pages.text) if pages is not None and pages.text else None
    except InvalidInput:
        raise
    except Exception:  # noqa: BLE001 - a missing or odd page count is not worth refusing the file
        return None


# --- images ----------------------------------------------------------------------------------------------


def image_geometry(data: bytes, media_type: str) -> tuple[int | None, int | None, int]:
    """(width, height, pages) of a PNG, JPEG or TIFF; unknown sizes are None."""
    if media_type == detection.PNG:
        if len(data) >= 24 and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return width, height, 1
        return None, None, 1
    if media_type == detection.JPEG:
        return (*_jpeg_size(data), 1)
    return _tiff(data)


_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    stream = io.BytesIO(data)
    stream.seek(2)
    while True:
        marker = stream.read(2)
        if len(marker) < 2 or marker[0] != 0xFF:
            return None, None
        if marker[1] in (0xD8, 0x01) or 0xD0 <= marker[1] <= 0xD7:
            continue
        length_bytes = stream.read(2)
        if len(length_bytes) < 2:
            return None, None
        (length,) = struct.unpack(">H", length_bytes)
        if marker[1] in _SOF:
            frame = stream.read(5)
            if len(frame) < 5:
                return None, None
            height, width = struct.unpack(">HH", frame[1:5])
            return width, height
        if length < 2:
            return None, None
        stream.seek(length - 2, io.SEEK_CUR)


def _tiff(data: bytes) -> tuple[int | None, int | None, int]:
    order = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack(order + "I", data[4:8])
        pages, width, height = 0, None, None
        seen: set[int] = set()
        while offset and offset not in seen and pages < _MAX_TIFF_PAGES and offset + 2 <= len(data):
            seen.add(offset)
            (count,) = struct.unpack(order + "H", data[offset : offset + 2])
            if pages == 0:
                width, height = _tiff_size(data, order, offset, count)
            pages += 1
            end = offset + 2 + 12 * count
            (offset,) = struct.unpack(order + "I", data[end : end + 4])
        return width, height, max(pages, 1)
    except struct.error:
        return None, None, 1


def _tiff_size(data: bytes, order: str, offset: int, count: int) -> tuple[int | None, int | None]:
    found: dict[int, int] = {}
    for i in range(count):
        entry = data[offset + 2 + 12 * i : offset + 14 + 12 * i]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            found[tag] = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8:10] if kind == 3 else entry[8:12])[
                0
            ]
    return found.get(256), found.get(257)
