"""Issue 23 (findings 6 and 10): signatures before structure, text throughout, external DOCX links, the
reading caps (PDF pages, XML elements, characters), and the child's pure entry points (`reading.py`)."""

from __future__ import annotations

import json

import pytest

from api.core.errors import InvalidInput
from api.evidence.evidence_control import detection, reading
from api.evidence.evidence_control.detection import ArchiveLimits, Limits, detect
from api.evidence.evidence_control.extraction import extract
from tests.support import evidence_files as files

ARCHIVE = ArchiveLimits(max_uncompressed_bytes=100 * 1_048_576, max_entries=1_000)
DEFAULTS = {"max_pdf_pages": 2_000, "max_text_chars": 5_000_000, "max_docx_elements": 2_000_000}
LIMITS = Limits(ARCHIVE, **DEFAULTS)


def limits(**caps: int) -> Limits:
    return Limits(ARCHIVE, **{**DEFAULTS, **caps})


def refusal(data: bytes, caps: Limits = LIMITS) -> str:
    """The message of refusing `data`, whether detection or extraction refuses it."""
    with pytest.raises(InvalidInput) as caught:
        extract(data, detect(data, caps), caps)
    return caught.value.message


def read(data: bytes, caps: Limits = LIMITS):
    return extract(data, detect(data, caps), caps)


# --- signatures first ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "words"),
    [
        (b"MZ\x90\x00" + b"\x00" * 60, "program"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 9, "program"),
        (b"\xcf\xfa\xed\xfe" + b"\x00" * 12, "program"),
        (b"\xca\xfe\xba\xbe" + b"\x00" * 12, "program"),
        (b"\x00asm\x01\x00\x00\x00", "program"),
        (b"#!/bin/sh\n", "program"),
        (b"\x1f\x8b\x08\x00", "gzip archive"),
        (b"Rar!\x1a\x07\x00", "RAR archive"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office"),
    ],
)
def test_a_signature_is_refused_whatever_document_follows_it(head, words):
    for carried in (files.text_pdf("Progress note"), files.docx("Progress note"), b"plain note"):
        assert words in refusal(head + carried)


def test_the_program_carrying_a_pdf_of_issue_23_is_a_program():
    assert "program" in refusal(files.program_with_pdf())


def test_a_pdf_is_only_a_pdf_from_its_first_byte():
    assert read(files.text_pdf("Progress note")).page_count == 1
    for prefix in (b" ", b"\r\n", b"\xef\xbb\xbf", b"junk "):
        assert "holds a PDF that does not start at its first byte" in refusal(prefix + files.text_pdf("x"))


# --- text throughout -------------------------------------------------------------------------------------


def test_the_spaced_javascript_pdf_of_issue_23_is_refused_not_stored_as_text():
    attack = files.spaced_javascript_pdf(1_100)
    assert detection.text_encoding(attack) == "utf-8"  # printable throughout: the old check took it for text
    assert "holds a PDF" in refusal(attack)
    assert "active content" in refusal(attack.lstrip())  # the same bytes from offset 0: the PDF checks


@pytest.mark.parametrize(
    "hidden",
    [
        b"%PDF-1.7",
        b"<script>alert(1)</script>",
        b"<SCRIPT src=x>",
        b"javascript:run()",
        b"VBScript:x",
        b"<?php echo 1;",
    ],
)
def test_a_pdf_or_script_anywhere_in_text_is_refused(hidden):
    note = b"Progress note, nothing unusual.\n" * 70_000  # 2.2 MB: past any prefix a check might sample
    assert detect(note, LIMITS).media_type == detection.TEXT
    message = refusal(note + hidden + b"\nmore text\n")
    assert "holds a PDF" in message or "holding a script" in message


@pytest.mark.parametrize("control", [b"\x00", b"\x01", b"\x08", b"\x1b", b"\x1f", b"\x7f", "\u0085".encode()])
def test_a_control_character_anywhere_in_text_is_refused(control):
    note = b"Progress note.\n" * 150_000 + control + b" end"
    assert "not a supported document type" in refusal(note)


def test_text_may_hold_tabs_line_breaks_and_form_feeds():
    note = b"Page 1\tcol\r\nline\x0bvertical\x0cPage 2\n"
    assert read(note).text == "Page 1\tcol\nline\x0bvertical\x0cPage 2\n"


def test_bytes_windows_1252_does_not_define_are_not_text():
    assert "not a supported document type" in refusal(b"caf\xe9 \x81 note")


# --- DOCX relationships ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "target", "mode", "part"),
    [
        ("image", "http://attacker.example/pixel.png", "External", "document"),
        ("oleObject", "file:///C:/finance/claims.xlsx", "External", "document"),
        ("image", "\\\\attacker\\share\\logo.png", "External", "header1"),
        ("attachedTemplate", "http://attacker.example/t.dotm", "External", "settings"),
        ("image", "http://attacker.example/pixel.png", "external", "footer2"),
        ("image", "https://attacker.example/pixel.png", None, "document"),  # a URL called internal
        ("oleObject", "//attacker/share/x.xls", None, "document"),
    ],
)
def test_a_docx_that_loads_anything_from_elsewhere_is_refused(kind, target, mode, part):
    message = refusal(files.docx_with_relationship(kind, target, mode, part))
    assert "loads content from elsewhere" in message and "template, image or linked object" in message


def test_hyperlinks_and_internal_images_are_accepted():
    link = files.docx_with_relationship("hyperlink", "https://www.cms.gov/medicare-coverage-database", "External")
    assert read(link).text == "See the attached image"
    image = files.docx_with_relationship("image", "media/image1.png", None)
    assert detect(image, LIMITS).media_type == detection.DOCX


# --- the reading caps ------------------------------------------------------------------------------------


def test_the_page_cap_is_read_from_the_page_tree_and_names_its_setting():
    assert refusal(files.blank_pages_pdf(30_000)) == (
        "Invalid input: 'file' is a PDF of 30,000 pages; the limit is 2,000 (EVIDENCE_MAX_PDF_PAGES); "
        "split it and attach the parts"
    )
    assert read(files.blank_pages_pdf(10), limits(max_pdf_pages=10)).page_count == 10


def test_a_page_count_that_lies_is_caught_by_counting_the_leaves():
    lying = files.blank_pages_pdf(50, declared=1)
    assert "is a PDF of more than 10 pages; the limit is 10 (EVIDENCE_MAX_PDF_PAGES)" in refusal(
        lying, limits(max_pdf_pages=10)
    )


def test_a_page_tree_that_loops_is_a_damaged_pdf():
    looping = files.blank_pages_pdf(1).replace(b"/Kids[3 0 R]", b"/Kids[2 0 R]")
    assert "damaged PDF" in refusal(looping)


def test_the_pdf_is_parsed_once_extraction_reads_the_checked_reader():
    pdf = files.text_pdf("Discharge summary", pages=3)
    found = detect(pdf, LIMITS)
    assert found.pdf is not None
    assert extract(b"", found, LIMITS).text.count("Discharge summary") == 3  # no bytes: the reader is used


def test_the_text_cap_stops_pdf_docx_and_text():
    cap = limits(max_text_chars=1_000)
    message = "holds more than 1,000 characters of text; the limit is 1,000 (EVIDENCE_MAX_TEXT_CHARS)"
    assert message in refusal(files.text_pdf("x" * 80, pages=20), cap)
    assert message in refusal(files.docx(*["y" * 100] * 11), cap)
    assert message in refusal(b"z" * 1_001, cap)
    assert read(b"z" * 1_000, cap).text == "z" * 1_000


def test_the_xml_element_cap_names_its_setting():
    word = files.docx(*["paragraph"] * 100)  # 100 x (w:p, w:r, w:t) + document and body
    assert "is a DOCX of more than 250 XML elements; the limit is 250 (EVIDENCE_MAX_DOCX_ELEMENTS)" in refusal(
        word, limits(max_docx_elements=250)
    )
    assert read(word, limits(max_docx_elements=302)).text == "\n".join(["paragraph"] * 100)


def test_the_docx_bomb_of_issue_23_stops_at_the_element_cap():
    bomb = files.docx_bomb()
    assert 1_500_000 < len(bomb) < 2_000_000  # 1.7 MB on the wire, 100 MB of XML: every zip check passes
    found = detect(bomb, LIMITS)
    assert "more than 2,000,000 XML elements; the limit is 2,000,000 (EVIDENCE_MAX_DOCX_ELEMENTS)" in refusal(bomb)
    assert found.media_type == detection.DOCX


def test_docx_text_boxes_tabs_and_breaks():
    w = files.W_NS
    document = (
        f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>Before </w:t></w:r><w:r><w:pict><w:txbxContent>'
        "<w:p><w:r><w:t>Inside</w:t></w:r></w:p></w:txbxContent></w:pict></w:r><w:r><w:t>after</w:t><w:tab/>"
        "<w:t>tabbed</w:t><w:br/><w:t>broken</w:t></w:r></w:p></w:body></w:document>"
    )
    word = files.zip_of({"[Content_Types].xml": files.CONTENT_TYPES.encode(), "word/document.xml": document.encode()})
    assert read(word).text == "Before after\ttabbed\nbroken\nInside"


# --- the child's entry points ------------------------------------------------------------------------------

PARAMS = {
    "max_uncompressed_bytes": ARCHIVE.max_uncompressed_bytes,
    "max_archive_entries": ARCHIVE.max_entries,
    **DEFAULTS,
}


def test_read_document_returns_json_with_only_redacted_text():
    pdf = files.text_pdf("Letter of medical necessity", "Patient: Harriet Vane", "Member ID: W4455667", "Sincerely")
    result = reading.read_document(pdf, limits=PARAMS, terms=["Harriet Vane", "PAT-1"], title="Letter for Harriet Vane")
    assert json.loads(json.dumps(result)) == result
    assert result["media_type"] == detection.PDF and result["page_count"] == 1
    assert "Harriet" not in json.dumps(result) and "W4455667" not in json.dumps(result)
    assert result["title"] == "Letter for [NAME]" and result["doc_type_guess"] == "physician_letter"
    assert result["redaction_counts"] == {"member_id": 1, "name": 1}
    assert result["text_chars"] > len("Letter of medical necessity")


def test_read_document_refuses_over_a_cap():
    with pytest.raises(InvalidInput, match="EVIDENCE_MAX_PDF_PAGES"):
        reading.read_document(files.blank_pages_pdf(30), limits={**PARAMS, "max_pdf_pages": 20}, terms=[], title="t")


def test_redact_text_redacts_the_text_with_every_term_and_the_title_with_the_caller_s():
    result = reading.redact_text(
        b"Seen with Robert Quill, claim PCN-1.",
        terms=["Robert Quill", "PCN-1"],
        title_terms=["Robert Quill"],
        title="Robert Quill note",
    )
    assert result == {
        "text": "Seen with [NAME], claim [MEMBER-ID].",
        "counts": {"member_id": 1, "name": 1},
        "title": "[NAME] note",
    }
