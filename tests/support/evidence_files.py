"""Evidence files built in the test, byte by byte: PDFs (fpdf2, pypdf), images, DOCX, hostile shapes."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)


def text_pdf(*lines: str, pages: int = 1) -> bytes:
    """A PDF with a real text layer (fpdf2, core font)."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for _ in range(pages):
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _rewrite(data: bytes, change) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def encrypted_pdf(data: bytes | None = None) -> bytes:
    return _rewrite(data or text_pdf("secret"), lambda w: w.encrypt(user_password="", owner_password="owner"))


def javascript_pdf() -> bytes:
    """Document-level JavaScript in the catalog's /Names tree (what Acrobat runs on open)."""

    def change(writer: PdfWriter) -> None:
        action = writer._add_object(
            DictionaryObject(
                {NameObject("/S"): NameObject("/JavaScript"), NameObject("/JS"): TextStringObject("app.alert(1);")}
            )
        )
        tree = DictionaryObject({NameObject("/Names"): ArrayObject([TextStringObject("init"), action])})
        writer._root_object[NameObject("/Names")] = writer._add_object(
            DictionaryObject({NameObject("/JavaScript"): writer._add_object(tree)})
        )

    return _rewrite(text_pdf("hello"), change)


def embedded_file_pdf() -> bytes:
    return _rewrite(text_pdf("hello"), lambda w: w.add_attachment("payload.exe", b"MZ\x90\x00"))


def launch_open_action_pdf() -> bytes:
    def change(writer: PdfWriter) -> None:
        action = DictionaryObject(
            {NameObject("/S"): NameObject("/Launch"), NameObject("/F"): TextStringObject("cmd.exe")}
        )
        writer._root_object[NameObject("/OpenAction")] = writer._add_object(action)

    return _rewrite(text_pdf("hello"), change)


def goto_open_action_pdf() -> bytes:
    """A benign opening action: show the first page (many generators write one)."""

    def change(writer: PdfWriter) -> None:
        writer._root_object[NameObject("/OpenAction")] = writer._add_object(
            DictionaryObject({NameObject("/S"): NameObject("/GoTo"), NameObject("/D"): TextStringObject("p1")})
        )

    return _rewrite(text_pdf("hello"), change)


def escaped_javascript_pdf() -> bytes:
    """/JavaScript written with #xx escapes, the classic way round a naive byte scan."""
    return javascript_pdf().replace(b"/JavaScript", b"/J#61vaScript").replace(b"/JS ", b"/J#53 ")


def png(width: int = 3, height: int = 2) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def jpeg(width: int = 640, height: int = 480) -> bytes:
    """The header of a baseline JPEG (APP0 + SOF0): enough for type and size detection."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


def tiff(pages: int = 2, width: int = 10, height: int = 20) -> bytes:
    """A little-endian TIFF whose IFD chain has `pages` directories (width/length tags only)."""
    out = bytearray(b"II*\x00" + struct.pack("<I", 8))
    for page in range(pages):
        offset = len(out)
        next_offset = offset + 2 + 2 * 12 + 4 if page < pages - 1 else 0
        out += struct.pack("<H", 2)
        out += struct.pack("<HHII", 256, 3, 1, width)
        out += struct.pack("<HHII", 257, 4, 1, height)
        out += struct.pack("<I", next_offset)
    return bytes(out)


def docx(*paragraphs: str, extra: dict[str, bytes] | None = None, content_types: str = CONTENT_TYPES) -> bytes:
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    document = (
        f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>'
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", content_types)
        archive.writestr("word/document.xml", document)
        archive.writestr(
            "docProps/app.xml",
            '<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
            'extended-properties"><Pages>3</Pages></Properties>',
        )
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def macro_docx() -> bytes:
    return docx("hello", extra={"word/vbaProject.bin": b"\xd0\xcf\x11\xe0 macro"})


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_bomb(expanded_bytes: int = 60 * 1_048_576) -> bytes:
    """A DOCX-shaped zip with one entry of zeros that deflates about 1000:1."""
    return docx("hi", extra={"word/media/bomb.bin": b"\x00" * expanded_bytes})


def many_entries_docx(count: int) -> bytes:
    return docx("hi", extra={f"word/media/e{i}.xml": b"<a/>" for i in range(count)})


def lying_size_docx() -> bytes:
    """A DOCX whose document.xml entry declares fewer bytes than it holds (a header that lies)."""
    data = bytearray(docx("x" * 5000))
    # Patch the declared uncompressed size of word/document.xml in the central directory to 10 bytes.
    name = b"word/document.xml"
    central = data.rfind(name) - 46
    local = data.find(name) - 30
    assert data[central : central + 4] == b"PK\x01\x02" and data[local : local + 4] == b"PK\x03\x04"
    struct.pack_into("<I", data, central + 24, 10)
    struct.pack_into("<I", data, local + 22, 10)
    return bytes(data)


# --- issue 23: the attacks at their real sizes -----------------------------------------------------------


def _written_pdf(objects: list[bytes]) -> bytes:
    """A PDF of the given object bodies (object 1 is the catalog), with its cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out.extend(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = len(out)
    out.extend(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.extend(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return bytes(out)


def blank_pages_pdf(pages: int, declared: int | None = None) -> bytes:
    """A PDF of `pages` blank pages written object by object (30,000 pages: about 2.9 MB, the attack of
    issue 23), whose page tree's /Count says `declared` (default: the truth)."""
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(pages))
    count = pages if declared is None else declared
    return _written_pdf(
        [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[%s]/Count %d>>" % (kids, count)]
        + [b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>"] * pages
    )


def ascii_javascript_pdf() -> bytes:
    """A one-page PDF, all printable ASCII, that runs JavaScript when opened: text to a naive check."""
    return _written_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
            b"<< /S /JavaScript /JS (app.alert('opened');) >>",
        ]
    )


def program_with_pdf() -> bytes:
    """A Windows program (MZ header) carrying a PDF in its first KB: the old check found '%PDF-' there."""
    return b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 48 + text_pdf("Progress note")


def spaced_javascript_pdf(spaces: int = 1_100) -> bytes:
    """A PDF that runs JavaScript, after more spaces than the old check looked at (1 KB): all printable,
    it was stored as plain text."""
    return b" " * spaces + ascii_javascript_pdf()


_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_REL_TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def docx_with_relationship(kind: str, target: str, mode: str | None = "External", part: str = "document") -> bytes:
    """A DOCX whose `part` (document, header1, ...) has one relationship of type `kind` (image,
    oleObject, hyperlink, attachedTemplate) to `target`."""
    mode_attribute = f' TargetMode="{mode}"' if mode else ""
    rels = (
        f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_RELS_NS}">'
        f'<Relationship Id="rId9" Type="{_REL_TYPES}{kind}" Target="{target}"{mode_attribute}/></Relationships>'
    )
    return docx("See the attached image", extra={f"word/_rels/{part}.xml.rels": rels.encode()})


def docx_bomb(paragraphs_per_counter: int = 4, expanded_bytes: int = 100_000_000) -> bytes:
    """A DOCX of about 1.7 MB whose document.xml expands to 100 MB of tiny paragraphs (about 8.6 million
    XML elements): every zip check passes (the ratio stays under the cap, the total under 100 MiB),
    and the old reader took 35 s and 1.6 GB to build its tree."""
    unit = "<w:p><w:r><w:t>a</w:t></w:r></w:p>" * paragraphs_per_counter
    parts = [f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W_NS}"><w:body>']
    size, i = 0, 0
    while size < expanded_bytes:
        piece = f"{unit}<w:p><w:r><w:t>{i}</w:t></w:r></w:p>"
        parts.append(piece)
        size += len(piece)
        i += 1
    parts.append("</w:body></w:document>")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("word/document.xml", "".join(parts))
    return buffer.getvalue()
