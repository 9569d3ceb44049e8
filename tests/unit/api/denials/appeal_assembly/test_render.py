"""The packet PDF: pure rendering, read back with pypdf."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader

from api.denials.appeal_assembly.contents import EvidenceItem, content_hash, items_hash, sha256_hex
from api.denials.appeal_assembly.render import Cover, PacketInput, RenderError, latin1, render

CREATED = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
LETTER = (
    "Re: First-level appeal\nPayer claim number: ICN-20240301-77\nAmount at stake: $1,250.00\n\n"
    "The remittance advice gives claim adjustment reason code (CARC) 50: Not deemed a medical necessity by the payer.\n\n"
    + "We ask that you reverse the denial. "
    * 120
)


def pdf_bytes(pages: int, text: str = "Progress note page", *, landscape: bool = False) -> bytes:
    doc = FPDF(orientation="L" if landscape else "P")
    doc.set_creation_date(CREATED)
    for n in range(1, pages + 1):
        doc.add_page()
        doc.set_font("Helvetica", size=12)
        doc.cell(0, 10, f"{text} {n}")
    return bytes(doc.output())


def png_bytes(width: int = 300, height: int = 200) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def item(document_id: int, title: str, media_type: str, content: bytes) -> EvidenceItem:
    return EvidenceItem(document_id, title, "clinical_notes", media_type, sha256_hex(content), content, None)


def evidence() -> tuple[EvidenceItem, ...]:
    return (
        item(11, "Progress notes of the admission", "application/pdf", pdf_bytes(3)),
        item(12, "Wound photograph", "image/png", png_bytes()),
        item(13, "Physician letter of medical necessity", "text/plain", ("Dear reviewer, " * 500).encode()),
        item(14, "Operative report", "application/pdf", pdf_bytes(2, "Operative report page", landscape=True)),
    )


def packet(**changes) -> PacketInput:
    items = changes.pop("evidence", evidence())
    letter = changes.pop("letter_text", LETTER)
    base = PacketInput(
        cover=Cover(
            title="Appeal packet 7",
            facts=(("Payer", "NORTHWIND HEALTH PLAN"), ("Payer claim number", "ICN-20240301-77")),
            form_title="Northwind Health Plan Provider Appeal Request",
            form_fields=(("Claim number", "ICN-20240301-77"), ("Member name", "")),
        ),
        letter_text=letter,
        evidence=items,
        content_hash=items_hash(letter, "medical_necessity.first_level/1", items),
        created_at=CREATED,
    )
    return replace(base, **changes)


def pages_text(pdf: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]


@pytest.fixture(scope="module")
def rendered():
    return render(packet())


def test_the_pdf_holds_the_claim_facts_the_carc_in_words_and_the_hash(rendered):
    text = " ".join(" ".join(pages_text(rendered.pdf)).split())
    assert "ICN-20240301-77" in text and "$1,250.00" in text and "NORTHWIND HEALTH PLAN" in text
    assert "CARC) 50: Not deemed a medical necessity by the payer" in text
    cover = pages_text(rendered.pdf)[0]
    assert packet().content_hash in cover and "Northwind Health Plan Provider Appeal Request" in cover
    assert rendered.sha256 == sha256_hex(rendered.pdf)


def test_every_page_says_page_i_of_n_including_appended_ones(rendered):
    texts = pages_text(rendered.pdf)
    assert len(texts) == rendered.page_count
    for number, text in enumerate(texts, start=1):
        assert f"Page {number} of {rendered.page_count}" in text


def test_the_toc_and_the_index_give_the_page_each_evidence_starts_on(rendered):
    texts = pages_text(rendered.pdf)
    sections = {s.name: s for s in rendered.sections}
    toc = texts[sections["Contents"].start_page - 1]
    index = "\n".join(
        texts[
            sections["Evidence index"].start_page - 1 : sections["Evidence index"].start_page
            - 1
            + sections["Evidence index"].page_count
        ]
    )
    for n, ev in enumerate(evidence(), start=1):
        section = sections[f"Evidence {n}: {ev.title}"]
        printed = re.search(rf"Evidence {n}: {re.escape(ev.title)}\s*(\d+)", toc)
        assert printed is not None and int(printed.group(1)) == section.start_page
        assert ev.title in index and f"starting on page {section.start_page}" in index
        first = texts[section.start_page - 1]
        expected = {
            11: "Progress note page 1",
            12: "Wound photograph",
            13: "Dear reviewer",
            14: "Operative report page 1",
        }
        assert expected[ev.document_id] in first
    assert re.search(rf"Appeal letter\s*{sections['Appeal letter'].start_page}", toc)
    # the appended PDFs keep their page counts; the text document is typeset over several pages
    assert sections["Evidence 1: Progress notes of the admission"].page_count == 3
    assert sections["Evidence 4: Operative report"].page_count == 2
    assert sections["Evidence 3: Physician letter of medical necessity"].page_count >= 2
    assert sum(s.page_count for s in rendered.sections) == rendered.page_count


def test_the_same_input_renders_the_same_bytes(rendered):
    again = render(packet())
    assert again.pdf == rendered.pdf and again.sha256 == rendered.sha256
    meta = PdfReader(io.BytesIO(rendered.pdf)).metadata
    assert meta is not None and meta["/CreationDate"] == "D:20240501120000Z" and "pypdf" not in str(meta["/Producer"])


def test_the_hash_changes_with_the_letter_an_evidence_byte_or_the_order():
    items = evidence()
    base = items_hash(LETTER, "v1", items)
    assert items_hash(LETTER + ".", "v1", items) != base
    assert items_hash(LETTER, "v2", items) != base
    tampered = bytearray(items[2].content)
    tampered[5] ^= 1
    changed = (*items[:2], replace(items[2], content=bytes(tampered)), items[3])
    assert items_hash(LETTER, "v1", changed) != base
    assert items_hash(LETTER, "v1", tuple(reversed(items))) != base
    # the digest is computed from the bytes, not trusted from the item
    assert items_hash(LETTER, "v1", changed) == content_hash(LETTER, "v1", [sha256_hex(i.content) for i in changed])
    assert render(packet(content_hash=items_hash(LETTER, "v1", changed), evidence=changed)).pdf != render(packet()).pdf


def test_a_packet_without_evidence_still_has_cover_contents_letter_and_index():
    out = render(packet(evidence=()))
    assert [s.name for s in out.sections] == ["Cover", "Contents", "Appeal letter", "Evidence index"]
    assert "No documents are enclosed" in pages_text(out.pdf)[out.sections[3].start_page - 1]


def test_characters_outside_latin1_are_replaced_not_fatal():
    assert latin1("“quoted” – ok … ☃ é") == '"quoted" - ok ... ? é'
    out = render(packet(letter_text="Snowman ☃ and “quotes” and é"))
    assert 'Snowman ? and "quotes" and é' in " ".join(" ".join(pages_text(out.pdf)).split())


def test_a_document_of_another_kind_gets_a_page_saying_it_is_enclosed_separately():
    docx = item(
        20, "Coding worksheet", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", b"PK.."
    )
    out = render(packet(evidence=(docx,)))
    assert "enclosed separately" in pages_text(out.pdf)[-1]


def test_an_unreadable_pdf_or_image_is_a_render_error():
    with pytest.raises(RenderError, match="not a readable PDF"):
        render(packet(evidence=(item(1, "Broken", "application/pdf", b"%PDF-1.4 garbage"),)))
    with pytest.raises(RenderError, match="not a readable image"):
        render(packet(evidence=(item(2, "Broken", "image/png", b"\x89PNG garbage"),)))


def test_a_huge_image_is_scaled_onto_one_page():
    out = render(packet(evidence=(item(3, "Scan", "image/png", png_bytes(4000, 300)),)))
    assert out.sections[-1].page_count == 1 and out.page_count == out.sections[-1].start_page


@settings(max_examples=25, deadline=None)
@given(st.text(st.characters(codec="utf-8"), max_size=3000))
def test_any_letter_text_renders_with_consistent_page_numbers(text):
    out = render(packet(letter_text=text, evidence=()))
    texts = pages_text(out.pdf)
    assert len(texts) == out.page_count
    assert f"Page {out.page_count} of {out.page_count}" in texts[-1]
