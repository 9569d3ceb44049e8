"""A reading child that runs out of memory or time, or fails, is a refusal naming what to change
(`service._capped`, through the real capped child: `tests/support/capped_targets.py`)."""

from __future__ import annotations

import pytest

from api.core.errors import InvalidInput
from api.core.settings import Settings
from api.evidence.evidence_control import service
from tests.support import evidence_files as files

TARGETS = "tests.support.capped_targets"
SETTINGS = Settings(evidence_memory_limit_bytes=512 * 1_048_576, evidence_cpu_seconds=1)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("hog_memory", "Invalid input: 'file' needs more than 512 MiB of memory to read (EVIDENCE_MEMORY_LIMIT_BYTES)"),
        ("spin", "Invalid input: 'file' takes more than 1 s of processing to read (EVIDENCE_CPU_SECONDS)"),
        ("boom", "Invalid input: 'file' could not be read; save or print it again as PDF"),
        ("die", "Invalid input: 'file' could not be read; save or print it again as PDF"),
    ],
)
def test_a_reading_child_that_fails_is_a_refusal_naming_its_cap(function, message):
    with pytest.raises(InvalidInput) as caught:
        service._capped(SETTINGS, f"{TARGETS}:{function}", b"x", {}, "'file'")
    assert caught.value.message.startswith(message)
    assert "private" not in caught.value.message


def test_the_reading_child_reads_a_document_with_the_settings_caps():
    settings = Settings(evidence_max_pdf_pages=5)
    params = {"limits": service.reading_limits(settings), "terms": [], "title": "Scan"}
    with pytest.raises(InvalidInput, match=r"is a PDF of 6 pages; the limit is 5 \(EVIDENCE_MAX_PDF_PAGES\)"):
        service._capped(settings, service.READ_DOCUMENT, files.blank_pages_pdf(6), params, "'file'")
    read = service._capped(settings, service.READ_DOCUMENT, files.blank_pages_pdf(5), params, "'file'")
    assert read["page_count"] == 5 and read["media_type"] == "application/pdf"
