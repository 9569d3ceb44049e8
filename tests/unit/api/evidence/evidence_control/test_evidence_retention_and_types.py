"""Retention arithmetic and document-type inference (pure)."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from api.evidence.evidence_control import doc_types, retention


def test_expiry_is_whole_years_and_29_february_falls_back():
    assert retention.expires_on(date(2020, 3, 1), 7) == date(2027, 3, 1)
    assert retention.expires_on(date(2020, 2, 29), 1) == date(2021, 2, 28)
    assert retention.expires_on(date(2020, 2, 29), 4) == date(2024, 2, 29)


def test_expired_on_or_after_the_expiry_day():
    attached = date(2018, 6, 15)
    assert not retention.is_expired(attached, 7, date(2025, 6, 14))
    assert retention.is_expired(attached, 7, date(2025, 6, 15))


@given(st.dates(), st.integers(1, 50))
def test_expiry_is_never_before_the_attach_day(day, years):
    if day.year + years <= 9999:
        assert retention.expires_on(day, years) > day


def test_infer_picks_the_type_with_most_keywords():
    assert doc_types.infer("Progress note. Chief complaint: pain. Assessment and plan: rest.") == "clinical_notes"
    assert doc_types.infer("Prior authorization approved. Authorization number 55.") == "authorization_proof"
    assert doc_types.infer("Clearinghouse acceptance report for the claim") == "proof_of_submission"
    assert doc_types.infer("Letter of medical necessity", None) == "physician_letter"
    assert doc_types.infer(None, "Medical policy for MRI") == "payer_policy"
    assert doc_types.infer("nothing to see here") == "other"
    assert doc_types.infer(None) == "other"


def test_keywords_match_whole_words_only():
    assert doc_types.infer("operative reportage") == "other"


def test_every_keyword_table_entry_is_a_known_type():
    assert set(doc_types.KEYWORDS) <= set(doc_types.DOC_TYPES)
