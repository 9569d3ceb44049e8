"""What an attached file is, from its bytes alone, and whether it may be kept (pure, no I/O).

The type comes from the content (signatures, then structure), never from the file name or the
declared content type: a PDF called ``notes.txt`` is a PDF. Accepted: PDF, PNG, JPEG, TIFF, DOCX and
plain text. Everything else is refused with `InvalidInput`, and so is malware-shaped input. In order:

1. **signatures at offset 0**, before anything else is believed: executables and scripts (``MZ``,
   ELF, Mach-O, Java class, WebAssembly, DEX, ``#!``), archives (gzip, bzip2, xz, RAR, 7z, CAB,
   tar) and legacy binary Office files are refused outright, whatever they hold further on (an
   ``MZ`` program with a PDF inside is a program);
2. **PDF** only when ``%PDF-`` is at offset 0 (issue 23: a PDF found anywhere in the first KB let a
   program carry one). Refused: encrypted PDFs (they cannot be checked or read); active content -
   JavaScript (``/JS``, ``/JavaScript``), launch actions, embedded files, rich media, XFA forms, or
   an ``/OpenAction`` that runs anything other than "go to a page"; more pages than
   ``Limits.max_pdf_pages``, counted on the page tree *before* any page is read (the declared
   ``/Count`` first, then the leaves, stopping past the cap); more objects than `MAX_PDF_OBJECTS`.
   The PDF is opened and parsed once: `Detected.pdf` is the reader extraction uses;
3. PNG, JPEG, TIFF by their signatures;
4. **DOCX** (a zip): zip-bomb shapes - more entries than allowed, declared uncompressed total above
   the cap, or an entry whose declared compression ratio is above `MAX_RATIO` - all checked on the
   central directory *before* anything is decompressed; entries are then read through a size-capped
   stream (`open_entry`, `read_entry`), so a lying header cannot expand past the cap either. Refused:
   a zip that is not a DOCX (also XLSX/PPTX), macros (``vbaProject.bin``, a macro-enabled content
   type), ActiveX controls, embedded OLE objects, and **any relationship to something outside the
   file** (``TargetMode="External"``, or a target with a URI scheme) in *any* part's ``.rels`` except
   a hyperlink: external templates, images and OLE links are all fetched when the file is opened.
   XML is read by a streaming, entity-free parser (`xml_events`) that counts elements against
   ``Limits.max_docx_elements`` and stops at the cap;
5. **plain text**, text throughout (issue 23: only the first KB was looked at, so a PDF with
   JavaScript after 1,100 spaces was stored as text): UTF-8, else Windows-1252 (whose printable
   characters are Latin-1's plus the curly quotes and dashes Windows writes in 0x80-0x9F); no NUL and
   no control character anywhere but tab, line feed, vertical tab, form feed and carriage return; and
   no embedded PDF (``%PDF-``) or script (``<script``, ``javascript:``, ``vbscript:``, ``<?php``)
   anywhere, since such a file is a disguised document or page rather than a note.

Messages say what to do and never quote the file's name or content; a cap's message names its
setting (``this PDF has 30,000 pages; the limit is 1,000 (EVIDENCE_MAX_PDF_PAGES)``).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import IO, Any, Protocol
from xml.parsers import expat

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


@dataclass(frozen=True)
class ArchiveLimits:
    """What a DOCX (a zip) may declare and expand to."""

    max_uncompressed_bytes: int
    max_entries: int
    max_ratio: int = MAX_RATIO


@dataclass(frozen=True)
class Limits:
    """Every cap on reading one document; the values come from Settings (their env names are in
    `CAP_SETTINGS`)."""

    archive: ArchiveLimits
    max_pdf_pages: int
    max_text_chars: int
    max_docx_elements: int


CAP_SETTINGS = {
    "max_pdf_pages": "EVIDENCE_MAX_PDF_PAGES",
    "max_text_chars": "EVIDENCE_MAX_TEXT_CHARS",
    "max_docx_elements": "EVIDENCE_MAX_DOCX_ELEMENTS",
}


@dataclass(frozen=True)
class Detected:
    media_type: str
    encoding: str | None = None  # plain text: utf-8 or cp1252
    # A PDF's reader and a DOCX's archive, opened and checked once here and read by extraction.
    pdf: PdfReader | None = field(default=None, compare=False, repr=False)
    archive: zipfile.ZipFile | None = field(default=None, compare=False, repr=False)


def refuse(reason: str) -> InvalidInput:
    return InvalidInput(f"Invalid input: 'file' {reason}")


def over_cap(what: str, count: str, limit: int, cap: str) -> InvalidInput:
    """A refusal naming the cap and its setting: "is a PDF of 30,000 pages; the limit is 1,000 (...)"."""
    return refuse(f"{what} {count}; the limit is {limit:,} ({CAP_SETTINGS[cap]}); split it and attach the parts")


_EXECUTABLES: tuple[bytes, ...] = (
    b"MZ",  # DOS / Windows (PE)
    b"\x7fELF",
    b"\xca\xfe\xba\xbe",  # Mach-O universal, Java class
    b"\xcf\xfa\xed\xfe",  # Mach-O 64-bit
    b"\xce\xfa\xed\xfe",  # Mach-O 32-bit
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\x00asm",  # WebAssembly
    b"dex\n",  # Android
    b"#!",  # a script with its interpreter
)
_ARCHIVES: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"Rar!\x1a\x07", "RAR"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"MSCF", "CAB"),
)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


def detect(data: bytes, limits: Limits) -> Detected:
    """The media type of `data`, after every safety check for that type; `InvalidInput` otherwise."""
    if not data:
        raise refuse("is empty")
    _refuse_by_signature(data)
    head = data[:16]
    if head.startswith(b"%PDF-"):
        return Detected(PDF, pdf=check_pdf(data, limits.max_pdf_pages))
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return Detected(PNG)
    if head.startswith(b"\xff\xd8\xff"):
        return Detected(JPEG)
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return Detected(TIFF)
    if head.startswith(_ZIP):
        return Detected(DOCX, archive=check_docx(data, limits))
    return Detected(TEXT, check_text(data))


def _refuse_by_signature(data: bytes) -> None:
    """Programs, archives and legacy Office files, known by their first bytes, whatever follows."""
    head = data[:16]
    if head.startswith(_EXECUTABLES):
        raise refuse("is a program or script; only documents are accepted")
    for magic, name in _ARCHIVES:
        if head.startswith(magic):
            raise refuse(f"is a {name} archive; archives are not accepted, attach the documents themselves")
    if len(data) > 262 and data[257:262] == b"ustar":
        raise refuse("is a tar archive; archives are not accepted, attach the documents themselves")
    if head.startswith(_OLE):
        raise refuse("is a legacy Office file (.doc/.xls); save it as PDF or DOCX and attach that")


# --- plain text ------------------------------------------------------------------------------------------

# C0 controls but tab, LF, VT, FF and CR, and DEL: never in a note, always in a binary file.
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
_C1_CONTROLS = re.compile("[\x80-\x9f]")  # after UTF-8 decoding (Windows-1252 has none: it errors)
_EMBEDDED_PDF = re.compile(rb"%PDF-")
_SCRIPT = re.compile(rb"<script|javascript:|vbscript:|<\?php", re.IGNORECASE)


def check_text(data: bytes) -> str:
    """The encoding of `data` when it is plain text throughout; `InvalidInput` otherwise."""
    if _EMBEDDED_PDF.search(data):
        raise refuse(
            "holds a PDF that does not start at its first byte (other bytes come first); "
            "save or print it again as PDF and attach that"
        )
    encoding = text_encoding(data)
    if encoding is None:
        raise refuse("is not a supported document type (PDF, PNG, JPEG, TIFF, DOCX or plain text)")
    if _SCRIPT.search(data):
        raise refuse("is text holding a script (a web page or program); save it as PDF and attach that")
    return encoding


def text_encoding(data: bytes) -> str | None:
    """'utf-8' or 'cp1252' when all of `data` reads as text without control characters, else None."""
    if _CONTROL_BYTES.search(data):
        return None
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            data.decode("cp1252")
        except UnicodeDecodeError:
            return None
        return "cp1252"
    return None if _C1_CONTROLS.search(decoded) else "utf-8"


# --- PDF -------------------------------------------------------------------------------------------------

_ACTIVE_KEYS = frozenset(
    {"/JS", "/JavaScript", "/Launch", "/EmbeddedFiles", "/EmbeddedFile", "/EF", "/RichMedia", "/XFA"}
)
_ACTIVE_ACTIONS = frozenset(
    {"/JavaScript", "/Launch", "/ImportData", "/SubmitForm", "/RichMediaExecute", "/GoToE", "/Rendition"}
)
_RAW_ACTIVE = re.compile(rb"/(?:JavaScript|JS|Launch|EmbeddedFiles?|RichMedia)(?![A-Za-z0-9])")
_ESCAPED_NAME = re.compile(rb"/(?:[A-Za-z0-9]|#[0-9A-Fa-f]{2}){2,40}")


def check_pdf(data: bytes, max_pages: int) -> PdfReader:
    """The reader of an acceptable PDF: readable, not encrypted, within the page cap, without active
    content. The page count is taken from the page tree before any object walk or page read."""
    if _raw_active_content(data):
        raise _active()
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise refuse("is an encrypted PDF; remove its password (print or save an unprotected copy) and attach that")
        check_page_count(reader, max_pages)
        _walk_pdf(reader)
    except InvalidInput:
        raise
    except Exception:  # noqa: BLE001 - any parser failure on untrusted bytes is the file's fault
        raise refuse("is a damaged PDF that could not be read; save or print it again as PDF") from None
    return reader


def check_page_count(reader: PdfReader, max_pages: int) -> int:
    """The number of pages, refused past `max_pages`: the root's declared /Count first (one object
    read), then the page tree's leaves, counted (no page's content read) and stopping past the cap: a
    /Count can lie, and a page shared by many /Kids is as many pages."""
    pages: Any = reader.root_object["/Pages"].get_object()
    declared = pages.get("/Count")
    if isinstance(declared, int) and declared > max_pages:
        raise over_cap("is a PDF of", f"{declared:,} pages", max_pages, "max_pdf_pages")
    try:
        count = page_tree_leaves(reader, max_pages, MAX_PDF_OBJECTS)
    except PageTreeTooLarge:  # a tree of empty nodes, or a cycle
        raise refuse("is a damaged PDF whose page tree could not be read; save or print it again as PDF") from None
    if count is None:
        raise over_cap("is a PDF of", f"more than {max_pages:,} pages", max_pages, "max_pdf_pages")
    return count


class PageTreeTooLarge(ValueError):
    """The page tree has more nodes than the walk may visit (a tree much bigger than its pages, or a cycle)."""


def page_tree_leaves(reader: PdfReader, cap: int, max_nodes: int) -> int | None:
    """The pages of a PDF, counted as the leaves of its page tree without building a page object:
    None as soon as there are more than `cap`. A node is an inner node as pypdf reads it (typed
    /Pages, or untyped with /Kids). Linear in the nodes visited, at most `max_nodes`
    (`PageTreeTooLarge` past them); ValueError for a node that is not a dictionary. The one page
    counter of evidence attach and appeal packet rendering."""
    stack: list[Any] = [reader.root_object["/Pages"]]
    pages, visits = 0, 0
    while stack:
        visits += 1
        if visits > max_nodes:
            raise PageTreeTooLarge
        node = stack.pop().get_object()
        if not isinstance(node, DictionaryObject):
            raise ValueError("a page tree node is not a dictionary")
        kids = node.get("/Kids")
        if node.get("/Type") == "/Pages" or ("/Type" not in node and kids is not None):
            listed = kids.get_object() if kids is not None else ArrayObject()
            if not isinstance(listed, ArrayObject):
                raise ValueError("a page tree node's /Kids is not an array")
            if len(listed) > max_nodes - visits:
                raise PageTreeTooLarge
            stack.extend(reversed(listed))
            continue
        pages += 1
        if pages > cap:
            return None
    return pages


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
            raise refuse(f"is a PDF with more than {MAX_PDF_OBJECTS:,} objects; split it and attach the parts")
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
_DAMAGED_ZIP = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError)


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


class _CappedEntry(io.RawIOBase):
    """An entry's decompressed stream that refuses to go past its declared size or the archive cap:
    a header that lies about the size is refused at the cap, never expanded past it."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        self._stream = stream
        self._left = cap

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            chunk = self._stream.read(min(len(buffer), self._left + 1))
        except _DAMAGED_ZIP:
            raise refuse("is a damaged ZIP/DOCX file that could not be read") from None
        if len(chunk) > self._left:
            raise refuse("is an archive whose entries expand beyond their declared size; it is not accepted")
        self._left -= len(chunk)
        buffer[: len(chunk)] = chunk
        return len(chunk)


def open_entry(archive: zipfile.ZipFile, name: str, limits: ArchiveLimits) -> io.BufferedReader:
    """One entry as a stream capped at its declared size and the archive cap."""
    info = archive.getinfo(name)
    try:
        stream = archive.open(info)
    except _DAMAGED_ZIP:
        raise refuse("is a damaged ZIP/DOCX file that could not be read") from None
    return io.BufferedReader(_CappedEntry(stream, min(info.file_size, limits.max_uncompressed_bytes)))


def read_entry(archive: zipfile.ZipFile, name: str, limits: ArchiveLimits) -> bytes:
    """One (small) entry, whole, read through the capped stream."""
    with open_entry(archive, name, limits) as stream:
        return stream.read()


# --- streaming XML ------------------------------------------------------------------------------------------


class XmlHandler(Protocol):
    """What `xml_events` calls: element names are ``"<namespace URI> <local name>"`` (or the local name
    alone outside any namespace); attributes are a dict keyed the same way."""

    def start(self, name: str, attrs: dict[str, str]) -> None: ...

    def end(self, name: str) -> None: ...

    def text(self, data: str) -> None: ...


class ElementBudget:
    """How many more XML elements a part may hold."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise over_cap("is a DOCX of", f"more than {self.limit:,} XML elements", self.limit, "max_docx_elements")


def _no_declarations(*_args: Any) -> Any:
    raise refuse("is a DOCX whose XML declares entities or a document type; save it as PDF and attach that")


def xml_events(
    archive: zipfile.ZipFile, name: str, limits: ArchiveLimits, budget: ElementBudget, handler: XmlHandler
) -> None:
    """Stream one XML part to `handler` without building a tree: the entry through its capped stream,
    parsed by expat (C) in 64 KB chunks, each element spent from `budget`, so the parse stops at the
    cap. Defused as defusedxml does it: a document type, entity declarations and external entities are
    refused (a DOCX has none: they are how "billion laughs" and external-entity attacks work).
    Malformed XML is a damaged DOCX."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True  # one text event per run of characters, not one per line
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _no_declarations
    parser.EntityDeclHandler = _no_declarations
    parser.UnparsedEntityDeclHandler = _no_declarations
    parser.ExternalEntityRefHandler = _no_declarations
    spend, on_start = budget.spend, handler.start

    def start(element: str, attrs: dict[str, str]) -> None:
        spend()
        on_start(element, attrs)

    parser.StartElementHandler = start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.text
    try:
        with open_entry(archive, name, limits) as stream:
            while chunk := stream.read(65_536):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except InvalidInput:
        raise
    except (expat.ExpatError, ValueError, UnicodeError):
        raise refuse("is a damaged DOCX whose text could not be read") from None


# --- DOCX checks ----------------------------------------------------------------------------------------------

_URI_SCHEME = re.compile(r"^\s*(?:[A-Za-z][A-Za-z0-9+.-]*:|[/\\]{2})")


def check_docx(data: bytes, limits: Limits) -> zipfile.ZipFile:
    """A zip is accepted only as a DOCX without macros, ActiveX, embedded objects or anything it would
    fetch from elsewhere when opened."""
    archive = open_zip(data, limits.archive)
    names = set(archive.namelist())
    if not all(required in names for required in _DOCX_REQUIRED):
        raise refuse(
            "is a ZIP archive (or an Office file other than DOCX); archives are not accepted, "
            "attach the documents themselves"
        )
    lowered = [n.lower() for n in names]
    if any(n.endswith(("vbaproject.bin", "vbadata.xml")) for n in lowered):
        raise refuse("is a DOCX with macros; save it as a plain .docx (no macros) or PDF and attach that")
    content_types = read_entry(archive, "[Content_Types].xml", limits.archive)
    if b"macroenabled" in content_types.lower():
        raise refuse("is a DOCX with macros; save it as a plain .docx (no macros) or PDF and attach that")
    if any(n.startswith(("word/activex/", "word/embeddings/")) for n in lowered):
        raise refuse("is a DOCX with embedded objects or ActiveX controls; save it as PDF and attach that")
    budget = ElementBudget(limits.max_docx_elements)  # shared by the relationship parts
    for rels in sorted(n for n in names if n.lower().endswith(".rels")):
        xml_events(archive, rels, limits.archive, budget, _Relationships())
    return archive


class _Relationships:
    """Refuses a relationship that points outside the file (an external template, image or OLE link,
    loaded when the document opens); only a hyperlink may (it is followed only when clicked)."""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name.rpartition(" ")[2] != "Relationship" or attrs.get("Type", "").rsplit("/", 1)[-1] == "hyperlink":
            return
        external = attrs.get("TargetMode", "").strip().lower() == "external"
        if external or _URI_SCHEME.match(attrs.get("Target", "")):
            raise refuse(
                "is a DOCX that loads content from elsewhere when opened (an external template, image or "
                "linked object); save it as PDF and attach that"
            )

    def end(self, name: str) -> None:
        pass

    def text(self, data: str) -> None:
        pass
