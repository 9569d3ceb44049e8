"""The packet renderer's bounds (issue 23): overlong words are hard-wrapped in linear time (one
4,000-character word used to cost 14.5 s), and a packet over a cap is refused naming it before
anything is drawn (a 12,000-page PDF did not render in 15 minutes). Timings live in bench/."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from fpdf import FPDF
from hypothesis import given
from hypothesis import strategies as st
from pypdf import PdfReader

from api.core.errors import InvalidInput
from api.denials.appeal_assembly import render_job
from api.denials.appeal_assembly.contents import EvidenceItem, sha256_hex
from api.denials.appeal_assembly.limits import PacketLimits, check_assembly, check_bytes
from api.denials.appeal_assembly.render import (
    STYLES,
    TEXT_W,
    Cover,
    PacketInput,
    _Typesetter,
    latin1,
    render,
)
from tests.support.evidence_files import blank_pages_pdf

CREATED = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def pdf_item(document_id: int, content: bytes, page_count: int | None = None) -> EvidenceItem:
    return EvidenceItem(
        document_id, "Chart", "medical_records", "application/pdf", sha256_hex(content), content, page_count
    )


def text_item(document_id: int, text: str) -> EvidenceItem:
    data = text.encode()
    return EvidenceItem(document_id, "Note", "clinical_notes", "text/plain", sha256_hex(data), data, None)


def packet(letter: str = "Please reprocess the claim.", evidence: tuple[EvidenceItem, ...] = ()) -> PacketInput:
    return PacketInput(Cover("Appeal packet 9", (("Payer", "ACME"),), None, ()), letter, evidence, "0" * 64, CREATED)


def _pdf_text(data: bytes) -> str:
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def _old_wrap(pdf: FPDF, paragraph: str, width: float) -> list[str]:
    """The wrapping the renderer did before (prefix by prefix with fpdf2's own measure): the reference."""
    measure = pdf.get_string_width
    lines: list[str] = []
    line = ""
    for word in paragraph.split(" "):
        candidate = f"{line} {word}" if line else word
        if measure(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        rest = word
        while measure(rest) > width:
            cut = next((i for i in range(len(rest) - 1, 0, -1) if measure(rest[:i]) <= width), 1)
            lines.append(rest[:cut])
            rest = rest[cut:]
        line = rest
    lines.append(line)
    return lines


WORDS = st.lists(
    st.one_of(st.text(alphabet="aiWM.,-é0", max_size=12), st.text(alphabet="mW", min_size=60, max_size=400)),
    max_size=12,
)


@given(WORDS, st.sampled_from(["body", "h1", "mono"]))
def test_wrapping_is_the_same_as_before_only_linear(words, style):
    paragraph = " ".join(words)
    pdf = FPDF(format="Letter", unit="mm")
    lines = [line.text for line in _Typesetter(pdf).wrap(paragraph, style)]
    family, emphasis, size, _ = STYLES[style]
    pdf.set_font(family, emphasis, size)
    assert lines == _old_wrap(pdf, latin1(paragraph), TEXT_W)


def test_a_4000_character_word_is_hard_wrapped_into_lines_that_fit_and_keeps_every_character():
    word = ("Pneumonoultramicroscopicsilicovolcanoconiosis" * 90)[:4_000]
    pdf = FPDF(format="Letter", unit="mm")
    lines = [line.text for line in _Typesetter(pdf).wrap(f"See {word} attached.")]
    pdf.set_font("Helvetica", "", 10.5)
    assert all(pdf.get_string_width(line) <= TEXT_W for line in lines)
    assert "".join(lines).replace(" ", "") == f"See{word}attached."
    rendered = render(packet(f"See {word} attached."))
    assert word in "".join(_pdf_text(rendered.pdf).split())


def test_truncating_a_long_title_keeps_the_longest_prefix_that_fits():
    pdf = FPDF(format="Letter", unit="mm")
    fitted = _Typesetter(pdf).fit("W" * 5_000, "h1")
    pdf.set_font("Helvetica", "B", 13)
    assert fitted.endswith("...") and pdf.get_string_width(fitted) <= TEXT_W
    assert pdf.get_string_width("W" + fitted) > TEXT_W


def test_a_pdf_over_the_page_cap_is_refused_naming_the_cap():
    over = pdf_item(31, blank_pages_pdf(1_001))
    with pytest.raises(InvalidInput) as raised:
        render(packet(evidence=(over,)))
    message = str(raised.value)
    assert "Evidence document 1 (id 31)" in message and "APPEAL_PACKET_MAX_PDF_PAGES allows 1000" in message


def test_a_page_tree_whose_count_lies_is_counted_not_believed():
    data = blank_pages_pdf(1_001, declared=1)
    assert b"/Count 1>>" in data
    with pytest.raises(InvalidInput, match="APPEAL_PACKET_MAX_PDF_PAGES"):
        render(packet(evidence=(pdf_item(31, data),)))


def test_the_packets_total_pages_are_capped_before_drawing():
    limits = PacketLimits(pdf_pages=5, pages=12)
    five = pdf_item(1, blank_pages_pdf(5))
    assert render(packet(evidence=(five,)), limits).page_count == 4 + 5
    with pytest.raises(InvalidInput, match=r"would have at least 15 pages; APPEAL_PACKET_MAX_PAGES allows 12"):
        render(packet(evidence=(five, replace(five, document_id=2), replace(five, document_id=3))), limits)
    with pytest.raises(InvalidInput, match=r"would have 14 pages; APPEAL_PACKET_MAX_PAGES allows 12"):
        render(packet(evidence=(five, replace(five, document_id=2))), limits)


def test_the_text_to_typeset_is_capped():
    limits = PacketLimits(text_chars=1_000)
    with pytest.raises(InvalidInput, match=r"1001 characters together.*APPEAL_PACKET_MAX_TEXT_CHARS \(1000\)"):
        render(packet("x" * 500, (text_item(1, "é" * 501),)), limits)
    assert render(packet("x" * 500, (text_item(1, "é" * 500),)), limits).page_count >= 4


def test_assembly_checks_the_stored_page_counts_bytes_and_text():
    limits = PacketLimits(pdf_pages=5, pages=8, text_chars=100, evidence_bytes=1_000)
    small = pdf_item(1, b"%PDF-", page_count=5)
    check_assembly(limits, "letter", (small,))
    check_assembly(limits, "letter", (replace(small, page_count=None),))  # unknown: the render decides
    with pytest.raises(InvalidInput, match=r"\(id 2\) has 6 pages; APPEAL_PACKET_MAX_PDF_PAGES allows 5"):
        check_assembly(limits, "letter", (small, replace(small, document_id=2, page_count=6)))
    with pytest.raises(InvalidInput, match=r"at least 10 pages; APPEAL_PACKET_MAX_PAGES allows 8"):
        check_assembly(limits, "letter", (small, replace(small, document_id=2)))
    with pytest.raises(InvalidInput, match="APPEAL_PACKET_MAX_TEXT_CHARS"):
        check_assembly(limits, "x" * 101, ())
    check_bytes(limits, [600, 400])
    with pytest.raises(InvalidInput, match=r"1001 bytes together, more than APPEAL_PACKET_MAX_EVIDENCE_BYTES \(1000\)"):
        check_bytes(limits, [600, 401])


def test_the_capped_job_round_trips_the_packet_and_answers_the_renderers_bytes():
    original = packet("Letter\nwith two lines", (pdf_item(7, blank_pages_pdf(2), 2), text_item(8, "Note é")))
    payload, params = render_job.encode(original, PacketLimits())
    assert render_job.decode(payload, params["packet"]) == original
    answer = render_job.render_encoded(payload, **params)
    direct = render(original)
    assert render_job.result_of(answer) == render_job.RenderedPdf(
        __import__("base64").b64encode(direct.pdf).decode(), len(direct.pdf), direct.sha256, direct.page_count
    )


@pytest.mark.parametrize(
    ("reason", "names"),
    [("time", "APPEAL_RENDER_CPU_SECONDS (30 s of CPU)"), ("memory", "APPEAL_RENDER_MEMORY_LIMIT_BYTES (1073741824")],
)
def test_a_render_that_outgrows_its_child_is_refused_naming_the_cap(reason, names):
    from api.core.settings import Settings
    from api.denials.appeal_assembly.service import _render_failed

    refusal = _render_failed(12, reason, Settings())
    assert isinstance(refusal, InvalidInput) and "appeal packet 12" in str(refusal) and names in str(refusal)
    assert "documentIds" in str(_render_failed(12, "crashed", Settings()))
