"""Type detection from the bytes, and every refusal shape: nothing hostile is accepted."""

from __future__ import annotations

import gzip
import io
import random
import tarfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf.generic import DictionaryObject, NameObject

from api.core.errors import InvalidInput
from api.evidence.evidence_control import detection
from api.evidence.evidence_control.detection import ArchiveLimits, Limits, detect
from api.evidence.evidence_control.extraction import extract, image_geometry, no_ocr
from tests.support import evidence_files as files

ARCHIVE = ArchiveLimits(max_uncompressed_bytes=50 * 1_048_576, max_entries=100)
LIMITS = Limits(ARCHIVE, max_pdf_pages=2_000, max_text_chars=5_000_000, max_docx_elements=2_000_000)


def limits(archive: ArchiveLimits = ARCHIVE, **caps: int) -> Limits:
    return Limits(
        archive, **{"max_pdf_pages": 2_000, "max_text_chars": 5_000_000, "max_docx_elements": 2_000_000, **caps}
    )


def refusal(data: bytes, limits: Limits = LIMITS) -> str:
    with pytest.raises(InvalidInput) as caught:
        detect(data, limits)
    return caught.value.message


@pytest.mark.parametrize(
    ("make", "media_type"),
    [
        (lambda: files.text_pdf("Progress note"), detection.PDF),
        (files.png, detection.PNG),
        (files.jpeg, detection.JPEG),
        (files.tiff, detection.TIFF),
        (lambda: files.docx("Progress note"), detection.DOCX),
        (lambda: b"Plain text note\nsecond line\n", detection.TEXT),
        (lambda: "Caf\xe9 au lait, na\xefve".encode("latin-1"), detection.TEXT),
    ],
)
def test_the_type_comes_from_the_content(make, media_type):
    assert detect(make(), LIMITS).media_type == media_type


def test_text_encodings_utf8_then_windows_1252():
    assert detect("Ünïcödé ✓".encode(), LIMITS).encoding == "utf-8"
    assert detect("Ünïcödé".encode("latin-1"), LIMITS).encoding == "cp1252"
    smart = detect("\u201cQuoted\u201d \u2013 dash".encode("cp1252"), LIMITS)
    assert smart.encoding == "cp1252"
    assert extract("\u201cQuoted\u201d".encode("cp1252"), smart, LIMITS).text == "\u201cQuoted\u201d"


def test_a_pdf_starts_at_its_first_byte():
    # Anything before '%PDF-' (even a line break) is not a PDF, and text holding a PDF is refused.
    assert "holds a PDF" in refusal(b"\r\n" + files.text_pdf("x"))


def test_a_benign_opening_action_is_accepted():
    assert detect(files.goto_open_action_pdf(), LIMITS).media_type == detection.PDF


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (files.encrypted_pdf, "encrypted PDF"),
        (files.javascript_pdf, "active content"),
        (files.escaped_javascript_pdf, "active content"),
        (files.embedded_file_pdf, "active content"),
        (files.launch_open_action_pdf, "active content"),
        (files.macro_docx, "macros"),
        (
            lambda: files.docx("x", content_types=files.CONTENT_TYPES.replace("main+xml", "macroEnabled.main+xml")),
            "macros",
        ),
        (lambda: files.docx("x", extra={"word/activeX/activeX1.xml": b"<x/>"}), "ActiveX"),
        (lambda: files.docx("x", extra={"word/embeddings/oleObject1.bin": b"ole"}), "embedded objects"),
        (
            lambda: files.docx(
                "x",
                extra={
                    "word/_rels/settings.xml.rels": b'<Relationship Target="http://x/t.dotm" TargetMode="External"/>'
                },
            ),
            "template",
        ),
        (lambda: files.zip_of({"notes.txt": b"hello"}), "ZIP archive"),
        (lambda: files.zip_of({"[Content_Types].xml": b"<x/>", "xl/workbook.xml": b"<x/>"}), "ZIP archive"),
        (lambda: gzip.compress(b"hello"), "gzip archive"),
        (lambda: b"Rar!\x1a\x07\x00" + b"\x00" * 20, "RAR archive"),
        (lambda: b"7z\xbc\xaf\x27\x1c" + b"\x00" * 20, "7z archive"),
        (lambda: b"BZh91AY&SY" + b"\x00" * 20, "bzip2 archive"),
        (lambda: b"\xfd7zXZ\x00" + b"\x00" * 20, "xz archive"),
        (lambda: b"MZ\x90\x00" + b"\x00" * 60, "program"),
        (lambda: b"\x7fELF\x02\x01" + b"\x00" * 60, "program"),
        (lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 60, "legacy Office"),
        (lambda: bytes(range(256)) * 4, "not a supported document type"),
        (lambda: b"", "empty"),
        (lambda: b"%PDF-1.7\n this is not really a pdf", "damaged PDF"),
    ],
)
def test_hostile_or_unsupported_content_is_refused_with_a_clear_message(make, words):
    message = refusal(make())
    assert message.startswith("Invalid input: 'file' ")
    assert words in message


def test_a_tar_archive_is_refused():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("notes.txt")
        info.size = 5
        archive.addfile(info, io.BytesIO(b"hello"))
    assert "tar archive" in refusal(buffer.getvalue())


def test_a_zip_bomb_is_refused_from_its_directory_before_anything_is_extracted():
    bomb = files.zip_bomb(60 * 1_048_576)
    assert len(bomb) < 200_000  # the shape: tiny on the wire, huge when expanded
    assert "decompression bomb" in refusal(bomb)


def test_the_total_declared_size_is_capped():
    noise = random.Random(7).randbytes(2 * 1_048_576)  # incompressible: the ratio is fine, the total is not
    big = files.docx("x", extra={"word/media/a.bin": noise})
    tight = limits(ArchiveLimits(max_uncompressed_bytes=1_048_576, max_entries=100))
    assert "expands to more than" in refusal(big, tight)


def test_the_entry_count_is_capped():
    assert "more than 5 entries" in refusal(files.many_entries_docx(10), limits(ArchiveLimits(50 * 1_048_576, 5)))


def test_an_entry_that_lies_about_its_size_is_not_expanded_past_it():
    lying = files.lying_size_docx()
    found = detect(lying, LIMITS)  # the directory looks fine; the text is read through the capped stream
    with pytest.raises(InvalidInput, match=r"could not be read|beyond their declared size"):
        extract(lying, found, LIMITS)


def test_an_entry_read_stops_at_the_cap():
    archive = detection.open_zip(files.docx("y" * 10_000), ARCHIVE)
    tight = ArchiveLimits(max_uncompressed_bytes=100, max_entries=100)
    with pytest.raises(InvalidInput, match="beyond their declared size"):
        detection.read_entry(archive, "word/document.xml", tight)


@pytest.mark.parametrize("key", ["/JS", "/JavaScript", "/Launch", "/EmbeddedFiles", "/RichMedia", "/XFA"])
def test_the_structure_walk_refuses_active_keys(key):
    with pytest.raises(InvalidInput, match="active content"):
        detection._check_dictionary(DictionaryObject({NameObject(key): NameObject("/X")}))


def test_the_structure_walk_refuses_an_opening_action_that_is_not_goto():
    action = DictionaryObject({NameObject("/S"): NameObject("/URI")})
    with pytest.raises(InvalidInput):
        detection._check_dictionary(DictionaryObject({NameObject("/OpenAction"): action}))
    detection._check_dictionary(
        DictionaryObject({NameObject("/OpenAction"): DictionaryObject({NameObject("/S"): NameObject("/GoTo")})})
    )


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_are_accepted_as_a_known_type_or_refused_never_crash(data):
    try:
        found = detect(data, LIMITS)
    except InvalidInput as refused:
        assert refused.message.startswith("Invalid input: 'file' ")
        return
    assert found.media_type in detection.MEDIA_TYPES
    extract(data, found, LIMITS)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=512))
def test_truncated_or_garbled_images_never_crash_the_geometry_reader(tail):
    for head, media in (
        (b"\x89PNG\r\n\x1a\n", detection.PNG),
        (b"\xff\xd8\xff", detection.JPEG),
        (b"II*\x00", detection.TIFF),
        (b"MM\x00*", detection.TIFF),
    ):
        _width, _height, pages = image_geometry(head + tail, media)
        assert pages >= 1


def test_extraction_of_each_type():
    two_pages = files.text_pdf("Discharge summary", pages=2)
    pdf = extract(two_pages, detect(two_pages, LIMITS), LIMITS)
    assert pdf.page_count == 2 and "Discharge summary" in (pdf.text or "")
    word = files.docx("First paragraph", "Second paragraph")
    extracted = extract(word, detect(word, LIMITS), LIMITS)
    assert extracted.text == "First paragraph\nSecond paragraph" and extracted.page_count == 3
    text = extract(b"\xef\xbb\xbfline one\r\nline two", detect(b"line", LIMITS), LIMITS)
    assert text.text == "line one\nline two" and text.page_count is None
    image = extract(files.png(7, 5), detect(files.png(), LIMITS), LIMITS)
    assert (image.text, image.page_count, image.width, image.height) == (None, 1, 7, 5)
    assert extract(files.tiff(pages=4), detect(files.tiff(), LIMITS), LIMITS).page_count == 4
    assert extract(files.jpeg(800, 600), detect(files.jpeg(), LIMITS), LIMITS).width == 800


def test_ocr_is_an_extension_point_that_returns_nothing_today():
    assert no_ocr(files.png(), detection.PNG) is None
    engine_text = extract(files.png(), detect(files.png(), LIMITS), LIMITS, ocr=lambda data, media: "Seen text")
    assert engine_text.text == "Seen text"


def test_docx_with_entities_is_refused_not_expanded():
    billion = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
        f'<w:document xmlns:w="{files.W_NS}"><w:body><w:p><w:r><w:t>&lol2;</w:t></w:r></w:p></w:body></w:document>'
    )
    word = files.zip_of({"[Content_Types].xml": files.CONTENT_TYPES.encode(), "word/document.xml": billion.encode()})
    found = detect(word, LIMITS)
    with pytest.raises(InvalidInput, match="declares entities or a document type"):
        extract(word, found, LIMITS)
