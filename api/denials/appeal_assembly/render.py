"""The appeal packet as one PDF (pure: bytes in, bytes out; no I/O).

Order: the cover (packet facts, the payer's cover form if known, the content hash), the table of
contents, the letter, the evidence index (every document's title, type, pages and first page), then
each evidence document: a PDF's own pages appended as they are, an image on one page scaled to fit,
a text document typeset, anything else (e.g. DOCX) a page saying it is enclosed separately.

How the page numbers are right: every section's page count is known before anything is drawn.
Generated text is wrapped by the renderer itself (string widths of the core font) into lines of a
fixed height, so a section's pages are a count of lines; the TOC and index have one line per entry
(titles truncated), so their length does not depend on the numbers they print; a PDF document's
pages are counted with pypdf. fpdf2 draws the generated pages (with their "Page i of n" footers),
then pypdf assembles the final order, inserting each PDF document's pages where it belongs and
stamping their footers with an overlay page drawn by fpdf2 at the same size.

Bounded (issue 23): lines are wrapped from each character's width, measured once per character and
font, so wrapping is linear in the text (a 4,000-character word used to be tried prefix by prefix,
cubic: 14.5 s); the packet's size is checked against `PacketLimits` before anything is drawn (the
text to typeset, each PDF's pages on a bounded walk of its page tree, the total), and each PDF is
parsed once. `service.render_pdf` runs this in a memory- and CPU-capped child (`render_job`).

Deterministic: the same input gives the same bytes (the creation date is the packet's assembly time,
the producer is fixed, the file identifier derives from the content). Text is set in the PDF core
fonts, which are Latin-1: typographic punctuation is mapped to ASCII and any other character
outside Latin-1 is replaced by '?'.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pypdf import PdfReader, PdfWriter, Transformation
from pypdf.errors import PyPdfError

from api.denials.appeal_assembly import limits as caps
from api.denials.appeal_assembly.contents import EvidenceItem, sha256_hex
from api.denials.appeal_assembly.limits import PacketLimits
from api.evidence.evidence_control.detection import PageTreeTooLarge, page_tree_leaves

if TYPE_CHECKING:  # fpdf2 (and fontTools, Pillow) is imported where a page is drawn: the API process never draws
    from fpdf import FPDF

PRODUCER = "denial-platform appealAssembly"
PAGE_FORMAT = "Letter"
PAGE_W, PAGE_H = 215.9, 279.4  # mm
MARGIN = 20.0
TOP = 20.0
BOTTOM = PAGE_H - 22.0
FOOTER_Y = PAGE_H - 14.0
TEXT_W = PAGE_W - 2 * MARGIN
PT_PER_MM = 72 / 25.4

# style -> (font family, style, size pt, line height mm)
STYLES: dict[str, tuple[str, str, float, float]] = {
    "title": ("Helvetica", "B", 18, 10.0),
    "h1": ("Helvetica", "B", 13, 8.0),
    "h2": ("Helvetica", "B", 10.5, 6.0),
    "body": ("Helvetica", "", 10.5, 5.0),
    "small": ("Helvetica", "", 9, 4.5),
    "mono": ("Courier", "", 9, 4.5),
    "blank": ("Helvetica", "", 10.5, 3.0),
}

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/tiff", "image/gif"})
PDF_TYPE = caps.PDF_TYPE
ELLIPSIS = "..."
_PDF_ERRORS = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)

_ASCII = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2026": "...",
        "\u2022": "-",
        "\u00a0": " ",
        "\t": "    ",
    }
)


class RenderError(ValueError):
    """An evidence document cannot be placed in the packet (unreadable PDF or image)."""


@dataclass(frozen=True)
class Cover:
    title: str
    facts: tuple[tuple[str, str], ...]  # label, value
    form_title: str | None
    form_fields: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PacketInput:
    cover: Cover
    letter_text: str
    evidence: tuple[EvidenceItem, ...]
    content_hash: str
    created_at: datetime  # the PDF's creation date (the packet's assembly time): fixed for the same packet


@dataclass(frozen=True)
class SectionInfo:
    name: str
    start_page: int
    page_count: int


@dataclass(frozen=True)
class RenderedPacket:
    pdf: bytes
    page_count: int
    sha256: str
    sections: tuple[SectionInfo, ...]


@dataclass
class _Line:
    text: str
    style: str = "body"
    right: str = ""  # right-aligned text on the same line (TOC page numbers)


@dataclass
class _Section:
    name: str
    kind: str  # lines | pdf | image
    lines: list[_Line] = field(default_factory=list)
    pages: list[list[_Line]] = field(default_factory=list)
    item: EvidenceItem | None = None
    pdf_pages: int = 0
    reader: PdfReader | None = None  # a PDF document, parsed once for counting and appending

    @property
    def page_count(self) -> int:
        return self.pdf_pages if self.kind == "pdf" else max(1, len(self.pages))


def latin1(text: str) -> str:
    """Text the core fonts can set: ASCII for typographic punctuation, '?' for the rest outside Latin-1."""
    return text.translate(_ASCII).encode("latin-1", "replace").decode("latin-1")


class _Typesetter:
    """Wraps text into lines with the widths fpdf2 will draw (no page is added here).

    A string's width is the sum of its characters' widths (the core fonts have no kerning), each
    measured by fpdf2 once per font and kept: wrapping, splitting an overlong word and truncating
    are then linear in the text."""

    def __init__(self, pdf: FPDF) -> None:
        self.pdf = pdf
        self._widths: dict[str, dict[str, float]] = {}
        self._style = ""

    def _font(self, style: str) -> dict[str, float]:
        family, emphasis, size, _ = STYLES[style]
        self.pdf.set_font(family, emphasis, size)
        self._style = style
        return self._widths.setdefault(style, {})

    def _measure(self, text: str, widths: dict[str, float]) -> float:
        total = 0.0
        for char in text:
            width = widths.get(char)
            if width is None:
                width = widths[char] = float(self.pdf.get_string_width(char))
            total += width
        return total

    def width(self, text: str, style: str) -> float:
        return self._measure(text, self._font(style))

    def fit(self, text: str, style: str, width: float = TEXT_W) -> str:
        """Truncate to one line of `width` (with '...')."""
        widths = self._font(style)
        if self._measure(text, widths) <= width:
            return text
        return text[: _fitting(text, 0, width - self._measure(ELLIPSIS, widths), widths, self._measure)] + ELLIPSIS

    def wrap(self, text: str, style: str = "body", width: float = TEXT_W) -> list[_Line]:
        widths = self._font(style)
        out: list[_Line] = []
        for paragraph in latin1(text).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
            out += [_Line(line, style) for line in self._wrap_paragraph(paragraph, width, widths)]
        return out

    def _wrap_paragraph(self, paragraph: str, width: float, widths: dict[str, float]) -> list[str]:
        """Words onto lines (a line's words joined once: no quadratic string growth); an overlong
        word hard-wrapped where the line is full."""
        space = self._measure(" ", widths)
        lines: list[str] = []
        words: list[str] = []
        used = 0.0
        for word in paragraph.split(" "):
            size = self._measure(word, widths)
            started = bool(words) and words != [""]  # a line holding only "" is still empty
            candidate = used + space + size if started else size
            if candidate <= width:
                words, used = ([*words, word] if started else [word]), candidate
                continue
            if started:
                lines.append(" ".join(words))
            pieces = _split_long(word, width, widths, self._measure)
            lines += pieces[:-1]
            words, used = [pieces[-1]], self._measure(pieces[-1], widths)
        lines.append(" ".join(words))
        return lines


def _fitting(
    text: str, start: int, width: float, widths: dict[str, float], measure: Callable[[str, dict[str, float]], float]
) -> int:
    """The end of the longest text[start:end] no wider than `width` (one pass over it)."""
    used, end = 0.0, start
    while end < len(text):
        used += measure(text[end], widths)
        if used > width:
            break
        end += 1
    return end


def _split_long(
    word: str, width: float, widths: dict[str, float], measure: Callable[[str, dict[str, float]], float]
) -> list[str]:
    """A word longer than the line, in pieces that fit (the last one may be continued); at least one
    character per piece. Linear: each character is visited once."""
    pieces: list[str] = []
    start = 0
    while True:
        end = max(_fitting(word, start, width, widths, measure), start + 1)
        if end >= len(word):
            return [*pieces, word[start:]]
        pieces.append(word[start:end])
        start = end


def _paginate(lines: Sequence[_Line]) -> list[list[_Line]]:
    pages: list[list[_Line]] = [[]]
    y = TOP
    for line in lines:
        height = STYLES[line.style][3]
        if y + height > BOTTOM and pages[-1]:
            pages.append([])
            y = TOP
        pages[-1].append(line)
        y += height
    return pages


def _cover_lines(ts: _Typesetter, packet: PacketInput) -> list[_Line]:
    cover = packet.cover
    lines = [_Line(latin1(cover.title), "title"), _Line("", "blank")]
    for label, value in cover.facts:
        lines += ts.wrap(f"{label}: {value}", "body")
    lines.append(_Line("", "blank"))
    if cover.form_title:
        lines.append(_Line(ts.fit(latin1(f"Payer cover form: {cover.form_title}"), "h1"), "h1"))
        for label, value in cover.form_fields:
            lines += ts.wrap(f"{label}: {value or '____________________________'}", "body")
    else:
        lines.append(_Line("No payer cover form is on record for this payer.", "body"))
    lines += [_Line("", "blank"), _Line("Content hash (SHA-256) of this packet:", "h2")]
    lines.append(_Line(packet.content_hash, "mono"))
    lines.append(_Line("over the letter, its template version and every evidence document's bytes, in order", "small"))
    return lines


def _toc_lines(ts: _Typesetter, sections: Sequence[_Section], starts: Sequence[int]) -> list[_Line]:
    lines = [_Line("Contents", "h1"), _Line("", "blank")]
    for section, start in zip(sections, starts, strict=True):
        if section.name in ("Cover", "Contents"):
            continue
        lines.append(_Line(ts.fit(latin1(section.name), "body", TEXT_W - 25), "body", right=str(start)))
    return lines


def _index_lines(
    ts: _Typesetter, items: Sequence[EvidenceItem], counts: Sequence[int], starts: Sequence[int]
) -> list[_Line]:
    lines = [_Line("Evidence index", "h1"), _Line("", "blank")]
    if not items:
        lines.append(_Line("No documents are enclosed with this appeal.", "body"))
    for n, (item, count, start) in enumerate(zip(items, counts, starts, strict=True), start=1):
        lines += ts.wrap(f"{n}. {item.title}", "h2")
        meta = (
            f"{item.doc_type.replace('_', ' ')}; {item.media_type}; {count} page{'s' if count != 1 else ''}, "
            f"starting on page {start}; SHA-256 {sha256_hex(item.content)[:16]}"
        )
        lines.append(_Line(ts.fit(latin1(meta), "small"), "small"))
    return lines


def _read_pdf(n: int, item: EvidenceItem, limits: PacketLimits) -> tuple[PdfReader, int]:
    """The document parsed once, and its pages: refused over APPEAL_PACKET_MAX_PDF_PAGES before pypdf
    builds a single page object."""
    try:
        reader = PdfReader(io.BytesIO(item.content))
        try:
            # A tree much bigger than its pages (or a cycle) is answered as too many pages.
            bounded = page_tree_leaves(reader, limits.pdf_pages, 4 * limits.pdf_pages + 64)
        except PageTreeTooLarge:
            bounded = None
        if bounded is None:
            raise caps.pdf_pages_over(limits, n, item.document_id, f"more than {limits.pdf_pages}")
        count = len(reader.pages)
    except _PDF_ERRORS as exc:
        raise RenderError(f"Evidence document {n} (id {item.document_id}) is not a readable PDF") from exc
    if count < 1:
        raise RenderError(f"Evidence document {n} (id {item.document_id}) has no pages")
    if count > limits.pdf_pages:  # pypdf saw more than the walk (a shared subtree): still the cap
        raise caps.pdf_pages_over(limits, n, item.document_id, count)
    return reader, count


def _evidence_section(ts: _Typesetter, n: int, total: int, item: EvidenceItem, limits: PacketLimits) -> _Section:
    name = f"Evidence {n}: {item.title}"
    heading = [_Line(ts.fit(latin1(f"Evidence {n} of {total}: {item.title}"), "h1"), "h1"), _Line("", "blank")]
    if item.media_type == PDF_TYPE:
        reader, count = _read_pdf(n, item, limits)
        return _Section(name, "pdf", item=item, pdf_pages=count, reader=reader)
    if item.media_type in IMAGE_TYPES:
        return _Section(name, "image", lines=heading, item=item)
    if item.media_type.startswith("text/"):
        return _Section(name, "lines", lines=heading + ts.wrap(item.content.decode("utf-8", "replace"), "body"))
    note = (
        f"This document ({item.media_type}, {len(item.content)} bytes) cannot be laid out in a PDF; it is "
        f"enclosed separately. Its SHA-256 is {sha256_hex(item.content)}."
    )
    return _Section(name, "lines", lines=heading + ts.wrap(note, "body"))


def _evidence_sections(ts: _Typesetter, items: Sequence[EvidenceItem], limits: PacketLimits) -> list[_Section]:
    """Each document's section; refused as soon as the PDFs' pages alone pass the packet's cap."""
    out: list[_Section] = []
    pdf_pages = 0
    for n, item in enumerate(items, start=1):
        out.append(_evidence_section(ts, n, len(items), item, limits))
        pdf_pages += out[-1].pdf_pages
        if pdf_pages > limits.pages:
            raise caps.total_pages_over(limits, f"at least {pdf_pages}")
    return out


def _layout(ts: _Typesetter, packet: PacketInput, limits: PacketLimits) -> list[_Section]:
    """Every section with its pages; the TOC and the index carry the final page numbers."""
    items = packet.evidence
    evidence = _evidence_sections(ts, items, limits)
    cover = _Section("Cover", "lines", lines=_cover_lines(ts, packet))
    toc = _Section("Contents", "lines")
    letter = _Section("Appeal letter", "lines", lines=[_Line("Appeal letter", "h1"), _Line("", "blank")])
    letter.lines += ts.wrap(packet.letter_text, "body")
    index = _Section("Evidence index", "lines")
    sections = [cover, toc, letter, index, *evidence]
    for section in (cover, letter, *evidence):
        if section.kind != "pdf":
            section.pages = _paginate(section.lines)
    starts: list[int] = []
    printed = [0] * len(sections)
    while printed != starts:  # placeholder numbers first (one line per entry: the same page counts), then the real ones
        printed = starts or printed
        toc.pages = _paginate(_toc_lines(ts, sections, printed))
        index.pages = _paginate(_index_lines(ts, items, [s.page_count for s in evidence], printed[4:]))
        starts = [1 + sum(s.page_count for s in sections[:i]) for i in range(len(sections))]
    return sections


def _footer(pdf: FPDF, number: int, total: int) -> None:
    pdf.set_font("Helvetica", "", 9)
    pdf.set_xy(MARGIN, FOOTER_Y)
    pdf.cell(TEXT_W, 5, f"Page {number} of {total}", align="C")


def _draw_lines(pdf: FPDF, page: Sequence[_Line]) -> float:
    y = TOP
    for line in page:
        family, emphasis, size, height = STYLES[line.style]
        pdf.set_font(family, emphasis, size)
        pdf.set_xy(MARGIN, y)
        pdf.cell(TEXT_W, height, line.text)
        if line.right:
            pdf.set_xy(MARGIN, y)
            pdf.cell(TEXT_W, height, line.right, align="R")
        y += height
    return y


def _draw_image(pdf: FPDF, item: EvidenceItem, top: float, n: int) -> None:
    try:
        pdf.image(io.BytesIO(item.content), x=MARGIN, y=top, w=TEXT_W, h=BOTTOM - top, keep_aspect_ratio=True)
    except Exception as exc:  # Pillow and fpdf2 raise many types for a bad image
        raise RenderError(f"Evidence document {n} (id {item.document_id}) is not a readable image") from exc


def _draw_generated(pdf: FPDF, sections: Sequence[_Section], total: int) -> None:
    number = 0
    for n, section in enumerate(sections, start=-3):
        if section.kind == "pdf":
            number += section.pdf_pages
            continue
        for page in section.pages:
            number += 1
            pdf.add_page()
            y = _draw_lines(pdf, page)
            if section.kind == "image" and section.item is not None:
                _draw_image(pdf, section.item, y + 2, n)
            _footer(pdf, number, total)


def _overlay(sizes: Sequence[tuple[float, float]], numbers: Sequence[int], total: int, created: datetime) -> PdfReader:
    """One page per appended page, at its size (points), holding only its footer."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt")
    pdf.set_creation_date(created)
    pdf.set_producer(PRODUCER)
    pdf.set_auto_page_break(False)
    for (width, height), number in zip(sizes, numbers, strict=True):
        pdf.add_page(format=(width, height))
        pdf.set_font("Helvetica", "", 9)
        pdf.set_fill_color(255, 255, 255)
        label = f"Page {number} of {total}"
        text_w = pdf.get_string_width(label) + 8
        pdf.set_xy((width - text_w) / 2, height - (PAGE_H - FOOTER_Y) * PT_PER_MM)
        pdf.cell(text_w, 14, label, align="C", fill=True)
    return PdfReader(io.BytesIO(bytes(pdf.output())))


def _assemble(front: bytes, sections: Sequence[_Section], total: int, created: datetime) -> PdfWriter:
    generated = PdfReader(io.BytesIO(front)).pages
    writer = PdfWriter()
    appended: list[tuple[int, int]] = []  # (writer page index, page number)
    next_generated = 0
    for section in sections:
        if section.kind != "pdf":
            for _ in range(section.page_count):
                writer.add_page(generated[next_generated])
                next_generated += 1
            continue
        assert section.reader is not None
        for page in section.reader.pages:
            added = writer.add_page(page)
            if added.rotation:
                added.transfer_rotation_to_content()
            appended.append((len(writer.pages) - 1, len(writer.pages)))
    if appended:
        boxes = [writer.pages[i].mediabox for i, _ in appended]
        overlay = _overlay([(float(b.width), float(b.height)) for b in boxes], [n for _, n in appended], total, created)
        for (index, _), box, stamp in zip(appended, boxes, overlay.pages, strict=True):
            shift = Transformation().translate(float(box.left), float(box.bottom))
            writer.pages[index].merge_transformed_page(stamp, shift, over=True)
    return writer


def _pdf_date(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("D:%Y%m%d%H%M%SZ")


def render(packet: PacketInput, limits: PacketLimits | None = None) -> RenderedPacket:
    """The packet's PDF, its page count and SHA-256, and where each section starts.

    Raises RenderError when an evidence document cannot be read as its media type says, and
    InvalidInput (naming the cap) for a packet over `limits`, before drawing anything."""
    from fpdf import FPDF  # see TYPE_CHECKING above

    limits = limits or PacketLimits()
    caps.check_text(limits, caps.text_chars(packet.letter_text, packet.evidence))
    created = packet.created_at if packet.created_at.tzinfo else packet.created_at.replace(tzinfo=UTC)
    pdf = FPDF(format=PAGE_FORMAT, unit="mm")
    pdf.set_creation_date(created)
    pdf.set_producer(PRODUCER)
    pdf.set_auto_page_break(False)
    pdf.set_margins(MARGIN, TOP, MARGIN)
    sections = _layout(_Typesetter(pdf), packet, limits)
    total = sum(s.page_count for s in sections)
    if total > limits.pages:
        raise caps.total_pages_over(limits, total)
    _draw_generated(pdf, sections, total)
    writer = _assemble(bytes(pdf.output()), sections, total, created)
    writer.add_metadata(
        {
            "/Producer": PRODUCER,
            "/Creator": PRODUCER,
            "/Title": latin1(packet.cover.title),
            "/CreationDate": _pdf_date(created),
            "/ModDate": _pdf_date(created),
        }
    )
    out = io.BytesIO()
    writer.write(out)
    data = out.getvalue()
    starts, infos = 1, []
    for section in sections:
        infos.append(SectionInfo(section.name, starts, section.page_count))
        starts += section.page_count
    return RenderedPacket(pdf=data, page_count=total, sha256=sha256_hex(data), sections=tuple(infos))
