"""What an attached file is, from its bytes alone, and whether it may be kept (pure, no I/O).

The type comes from the content (magic bytes, then structure), never from the file name or the
declared content type: a PDF called ``notes.txt`` is a PDF. Accepted: PDF, PNG, JPEG, TIFF, DOCX and
plain text (UTF-8, else Latin-1). Everything else is refused with `InvalidInput`, and so is
malware-shaped input:

- encrypted PDFs (they cannot be checked or read);
- PDFs with active content: JavaScript (``/JS``, ``/JavaScript``), launch actions, embedded files,
  rich media, XFA forms, or an ``/OpenAction`` that runs anything other than "go to a page";
- archives: ZIP that is not a DOCX (also XLSX/PPTX), gzip, bzip2, xz, RAR, 7z, tar, CAB;
- DOCX with macros (``vbaProject.bin``, a macro-enabled content type), ActiveX controls, embedded
  OLE objects, or a template fetched from elsewhere;
- zip-bomb shapes: more entries than allowed, declared uncompressed total above the cap, or an
  entry whose declared compression ratio is above `MAX_RATIO` - all checked on the central
  directory *before* anything is decompressed; entries are then read through a size-capped stream
  (`read_entry`), so a lying header cannot expand past the cap either;
- executables and legacy binary Office files.

Messages say what to do and never quote the file's name or content.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from typing import Any

from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

from api.core.errors import InvalidInput

PDF = "application/pdf"
PNG = "image/png"
JPEG = "image/jpeg"
TIFF = "image/tiff"
TEXT = "text/plain"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
MEDIA_TYPES: tuple[str, ...] = (PDF, PNG, JPEG, TIFF, TEXT, DOCX)
IMAGE_TYPES = frozenset({PNG, JPEG, TIFF})

MAX_RATIO = 200  # declared uncompressed / compressed size of one zip entry
RATIO_FLOOR = 1_048_576  # entries smaller than this may compress better (runs of XML) without harm
MAX_PDF_OBJECTS = 200_000
_TEXT_SAMPLE = 1_048_576
_MAX_CONTROL_SHARE = 0.01


@dataclass(frozen=True)
class ArchiveLimits:
    """What a DOCX (a zip) may declare and expand to."""

    max_uncompressed_bytes: int
    max_entries: int
    max_ratio: int = MAX_RATIO


@dataclass(frozen=True)
class Detected:
    media_type: str
    encoding: str | None = None  # plain text: utf-8 or latin-1


def refuse(reason: str) -> InvalidInput:
    return InvalidInput(f"Invalid input: 'file' {reason}")


_ARCHIVES: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"Rar!\x1a\x07", "RAR"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"MSCF", "CAB"),
)
_EXECUTABLES: tuple[bytes, ...] = (
    b"MZ",
    b"\x7fELF",
    b"\xca\xfe\xba\xbe",
    b"\xcf\xfa\xed\xfe",
    b"\xce\xfa\xed\xfe",
    b"#!",
)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def detect(data: bytes, limits: ArchiveLimits) -> Detected:
    """The media type of `data`, after every safety check for that type; `InvalidInput` otherwise."""
    if not data:
        raise refuse("is empty")
    head = data[:16]
    if b"%PDF-" in data[:1024]:
        check_pdf(data)
        return Detected(PDF)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return Detected(PNG)
    if head.startswith(b"\xff\xd8\xff"):
        return Detected(JPEG)
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return Detected(TIFF)
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")):
        check_docx(data, limits)
        return Detected(DOCX)
    return _other(data)


def _other(data: bytes) -> Detected:
    head = data[:16]
    for magic, name in _ARCHIVES:
        if head.startswith(magic):
            raise refuse(f"is a {name} archive; archives are not accepted, attach the documents themselves")
    if len(data) > 262 and data[257:262] == b"ustar":
        raise refuse("is a tar archive; archives are not accepted, attach the documents themselves")
    if head.startswith(_OLE):
        raise refuse("is a legacy Office file (.doc/.xls); save it as PDF or DOCX and attach that")
    if head.startswith(_EXECUTABLES):
        raise refuse("is a program or script; only documents are accepted")
    encoding = text_encoding(data)
    if encoding is None:
        raise refuse("is not a supported document type (PDF, PNG, JPEG, TIFF, DOCX or plain text)")
    return Detected(TEXT, encoding)


def text_encoding(data: bytes) -> str | None:
    """'utf-8' or 'latin-1' when `data` reads as text (no NUL, almost no control characters), else None."""
    if b"\x00" in data:
        return None
    for encoding in ("utf-8", "latin-1"):
        try:
            sample = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        sample = sample[:_TEXT_SAMPLE]
        controls = sum(1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f") or 0x7F <= ord(ch) <= 0x9F)
        return encoding if controls <= _MAX_CONTROL_SHARE * max(len(sample), 1) else None
    return None


# --- PDF -------------------------------------------------------------------------------------------------

_ACTIVE_KEYS = frozenset(
    {"/JS", "/JavaScript", "/Launch", "/EmbeddedFiles", "/EmbeddedFile", "/EF", "/RichMedia", "/XFA"}
)
_ACTIVE_ACTIONS = frozenset(
    {"/JavaScript", "/Launch", "/ImportData", "/SubmitForm", "/RichMediaExecute", "/GoToE", "/Rendition"}
)
_RAW_ACTIVE = re.compile(rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|RichMedia)(?![A-Za-z0-9])")
_ESCAPED_NAME = re.compile(rb"/(?:[A-Za-z0-9]|#[0-9A-Fa-f]{2}){2,40}")


def check_pdf(data: bytes) -> PdfReader:
    """The reader of an acceptable PDF: readable, not encrypted, without active content."""
    if _raw_active_content(data):
        raise _active()
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise refuse("is an encrypted PDF; remove its password (print or save an unprotected copy) and attach that")
        _walk_pdf(reader)
        _ = len(reader.pages)
    except InvalidInput:
        raise
    except Exception:  # noqa: BLE001 - any parser failure on untrusted bytes is the file's fault
        raise refuse("is a damaged PDF that could not be read; save or print it again as PDF") from None
    return reader


def _active() -> InvalidInput:
    return refuse(
        "is a PDF with active content (JavaScript, launch actions, embedded files or an opening action); "
        "print it to a new PDF without them and attach that"
    )


def _raw_active_content(data: bytes) -> bool:
    """Names of active content anywhere in the raw bytes, also spelled with #xx escapes."""
    if _RAW_ACTIVE.search(data):
        return True
    if b"#" not in data:
        return False
    for match in _ESCAPED_NAME.finditer(data):
        token = match.group()
        if b"#" in token:
            decoded = re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), token)
            if _RAW_ACTIVE.fullmatch(decoded):
                return True
    return False


def _walk_pdf(reader: PdfReader) -> None:
    """Every object reachable from the trailer, looked at once; refuses active content."""
    stack: list[Any] = [reader.trailer]
    seen: set[tuple[int, int]] = set()
    visited = 0
    while stack:
        obj = stack.pop()
        if isinstance(obj, IndirectObject):
            key = (obj.idnum, obj.generation)
            if key in seen:
                continue
            seen.add(key)
            obj = obj.get_object()
        visited += 1
        if visited > MAX_PDF_OBJECTS:
            raise refuse(f"is a PDF with more than {MAX_PDF_OBJECTS} objects; split it and attach the parts")
        if isinstance(obj, DictionaryObject):
            _check_dictionary(obj)
            stack.extend(dict.values(obj))
        elif isinstance(obj, ArrayObject):
            stack.extend(list.__iter__(obj))


def _check_dictionary(obj: DictionaryObject) -> None:
    keys = set(dict.keys(obj))
    if keys & _ACTIVE_KEYS or dict.get(obj, "/S") in _ACTIVE_ACTIONS:
        raise _active()
    if "/OpenAction" in keys:
        action = obj["/OpenAction"]
        if isinstance(action, DictionaryObject) and action.get("/S") != "/GoTo":
            raise _active()


# --- DOCX (a zip) -----------------------------------------------------------------------------------------

_DOCX_REQUIRED = ("[Content_Types].xml", "word/document.xml")


def open_zip(data: bytes, limits: ArchiveLimits) -> zipfile.ZipFile:
    """The archive, after its central directory was checked against `limits` (nothing decompressed)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError):
        raise refuse("is a damaged ZIP/DOCX file that could not be read") from None
    if len(infos) > limits.max_entries:
        raise refuse(f"is an archive of more than {limits.max_entries} entries; it is not accepted")
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise refuse("is an encrypted archive; it is not accepted")
        total += info.file_size
        ratio_too_high = info.file_size > RATIO_FLOOR and info.file_size > limits.max_ratio * max(info.compress_size, 1)
        if ratio_too_high:
            raise refuse(
                "is an archive shaped like a decompression bomb (an entry expands too far); it is not accepted"
            )
    if total > limits.max_uncompressed_bytes:
        raise refuse(
            f"is an archive that expands to more than {limits.max_uncompressed_bytes} bytes; it is not accepted"
        )
    return archive


def read_entry(archive: zipfile.ZipFile, name: str, limits: ArchiveLimits) -> bytes:
    """One entry, read through a stream capped at its declared size and the archive cap: a header that
    lies about the size is refused at the cap, never expanded past it."""
    info = archive.getinfo(name)
    cap = min(info.file_size, limits.max_uncompressed_bytes)
    out = bytearray()
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(65_536):
                out += chunk
                if len(out) > cap:
                    raise refuse("is an archive whose entries expand beyond their declared size; it is not accepted")
    except InvalidInput:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError):
        raise refuse("is a damaged ZIP/DOCX file that could not be read") from None
    return bytes(out)


def check_docx(data: bytes, limits: ArchiveLimits) -> None:
    """A zip is accepted only as a DOCX without macros, ActiveX, embedded objects or external templates."""
    archive = open_zip(data, limits)
    names = set(archive.namelist())
    if not all(required in names for required in _DOCX_REQUIRED):
        raise refuse(
            "is a ZIP archive (or an Office file other than DOCX); archives are not accepted, "
            "attach the documents themselves"
        )
    lowered = [n.lower() for n in names]
    if any(n.endswith(("vbaproject.bin", "vbadata.xml")) for n in lowered):
        raise refuse("is a DOCX with macros; save it as a plain .docx (no macros) or PDF and attach that")
    content_types = read_entry(archive, "[Content_Types].xml", limits)
    if b"macroenabled" in content_types.lower():
        raise refuse("is a DOCX with macros; save it as a plain .docx (no macros) or PDF and attach that")
    if any(n.startswith(("word/activex/", "word/embeddings/")) for n in lowered):
        raise refuse("is a DOCX with embedded objects or ActiveX controls; save it as PDF and attach that")
    for rels in (n for n in names if n.lower().endswith(".rels") and "settings" in n.lower()):
        if b'targetmode="external"' in read_entry(archive, rels, limits).lower():
            raise refuse("is a DOCX that loads a template from elsewhere; save it as PDF and attach that")
