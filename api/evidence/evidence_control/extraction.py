"""Text, page count and image size of an accepted document (pure, no I/O beyond the bytes given).

- PDF: the text layer of every page (pypdf); a scanned PDF without one has no text.
- DOCX: the paragraphs of ``word/document.xml`` (read through the capped zip stream, parsed with
  defusedxml: no DTDs, no entities); the page count from ``docProps/app.xml`` when the editor wrote it.
- Plain text: decoded as detected (UTF-8, else Latin-1).
- Images: page count (TIFF pages, else 1) and width x height; their text is what the OCR engine
  returns, and the only engine today is `no_ocr`, which returns None. A real engine is a callable
  matching `OcrEngine`, passed to `extract` (the extension point; nothing else changes).

Text is capped at `MAX_TEXT_CHARS` and normalised to ``\\n`` line endings.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass
from typing import Protocol

from defusedxml import ElementTree

from api.evidence.evidence_control import detection
from api.evidence.evidence_control.detection import ArchiveLimits, Detected

MAX_TEXT_CHARS = 2_000_000
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_APP = "{http://schemas.openxmlformats.org/officeDocument/2006/extended-properties}"
_MAX_TIFF_PAGES = 10_000


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


def extract(data: bytes, detected: Detected, limits: ArchiveLimits, ocr: OcrEngine = no_ocr) -> Extracted:
    media = detected.media_type
    if media == detection.PDF:
        return _pdf(data)
    if media == detection.DOCX:
        return _docx(data, limits)
    if media == detection.TEXT:
        return Extracted(_clean(data.decode(detected.encoding or "utf-8").lstrip("\ufeff")), None)
    width, height, pages = image_geometry(data, media)
    return Extracted(_clean(ocr(data, media)), pages, width, height)


def _clean(text: str | None) -> str | None:
    if text is None:
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")[:MAX_TEXT_CHARS]
    return text if text.strip() else None


def _pdf(data: bytes) -> Extracted:
    reader = detection.check_pdf(data)
    parts: list[str] = []
    size = 0
    for page in reader.pages:
        try:
            text = page.extract_text() or ""
        except Exception:  # noqa: BLE001 - a page whose text cannot be read contributes none
            text = ""
        parts.append(text)
        size += len(text)
        if size > MAX_TEXT_CHARS:
            break
    return Extracted(_clean("\n\n".join(parts)), len(reader.pages))


def _docx(data: bytes, limits: ArchiveLimits) -> Extracted:
    archive = detection.open_zip(data, limits)
    try:
        root = ElementTree.fromstring(detection.read_entry(archive, "word/document.xml", limits))
    except detection.InvalidInput:
        raise
    except Exception:  # noqa: BLE001 - malformed or entity-laden XML is the file's fault
        raise detection.refuse("is a damaged DOCX whose text could not be read") from None
    paragraphs = []
    for paragraph in root.iter(f"{_W}p"):
        pieces = []
        for node in paragraph.iter():
            if node.tag == f"{_W}t" and node.text:
                pieces.append(node.text)
            elif node.tag == f"{_W}tab":
                pieces.append("\t")
            elif node.tag in (f"{_W}br", f"{_W}cr"):
                pieces.append("\n")
        paragraphs.append("".join(pieces))
    return Extracted(_clean("\n".join(paragraphs)), _docx_pages(archive, limits))


def _docx_pages(archive: zipfile.ZipFile, limits: ArchiveLimits) -> int | None:
    if "docProps/app.xml" not in archive.namelist():
        return None
    try:
        pages = ElementTree.fromstring(detection.read_entry(archive, "docProps/app.xml", limits)).find(f"{_APP}Pages")
        return int(pages.text) if pages is not None and pages.text else None
    except detection.InvalidInput:
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
