"""Requirements per denial category (data) and the completeness / strength / gaps rules (pure)."""

from __future__ import annotations

import csv

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.evidence.evidence_control.doc_types import DOC_TYPES
from api.evidence.evidence_quality import scoring
from api.evidence.evidence_quality.requirements import (
    DEFAULT,
    DEFAULT_KEY,
    GAP_SENTENCES,
    REQUIREMENTS,
    Requirement,
    requirement_for,
)
from tests.support.paths import REPO


def _seed_categories() -> set[str]:
    path = REPO / "dbt_project" / "seeds" / "reference" / "denial_categories.csv"
    with path.open(newline="") as fh:
        return {row["category"] for row in csv.DictReader(fh)}


def _carc_categories() -> set[str]:
    path = REPO / "dbt_project" / "seeds" / "reference" / "carc_denial_categories.csv"
    with path.open(newline="") as fh:
        return {row["category"] for row in csv.DictReader(fh)}


def test_every_denial_category_of_the_reference_seeds_has_a_requirement():
    assert _seed_categories() | _carc_categories() <= set(REQUIREMENTS)


def test_requirements_name_known_document_types_with_a_gap_sentence():
    for requirement in [*REQUIREMENTS.values(), DEFAULT]:
        for doc_type in (*requirement.required, *requirement.recommended):
            assert doc_type in DOC_TYPES and doc_type in GAP_SENTENCES
        assert requirement.required, "every category needs at least one document"
    assert set(GAP_SENTENCES) == set(DOC_TYPES)


def test_the_issue_s_examples():
    assert REQUIREMENTS["medical_necessity"].required == ("clinical_notes", "payer_policy", "physician_letter")
    assert REQUIREMENTS["authorization"].required == ("authorization_proof",)
    assert REQUIREMENTS["timely_filing"].required == ("proof_of_submission",)
    assert REQUIREMENTS["coding"].required == ("corrected_codes", "coding_documentation")


def test_unknown_or_missing_category_uses_the_default():
    assert requirement_for(None) == (DEFAULT_KEY, DEFAULT)
    assert requirement_for("made_up") == (DEFAULT_KEY, DEFAULT)
    assert requirement_for("coding")[0] == "coding"


MN = REQUIREMENTS["medical_necessity"]


def test_nothing_attached_scores_zero():
    result = scoring.score(MN, [])
    assert (result.completeness, result.strength, result.missing) == (0.0, 0.0, MN.required)


def test_partial_evidence():
    result = scoring.score(MN, [("clinical_notes", 5000), ("other", 10)])
    assert result.present == ("clinical_notes", "other")
    assert result.missing == ("payer_policy", "physician_letter")
    assert result.completeness == pytest.approx(1 / 3, abs=1e-3)
    assert result.strength == pytest.approx(1 / 3 * 0.8, abs=1e-3)


def test_complete_full_text_evidence_is_0_8_and_recommended_types_reach_1():
    docs = [(t, 1000) for t in MN.required]
    assert scoring.score(MN, docs).strength == 0.8
    assert scoring.score(MN, docs + [(t, 1000) for t in MN.recommended]).strength == 1.0


def test_images_without_text_are_weaker_and_named_as_gaps():
    docs = [("clinical_notes", 0), ("payer_policy", 1000), ("physician_letter", 50)]
    result = scoring.score(MN, docs)
    assert result.completeness == 1.0
    assert result.strength == pytest.approx((0.5 + 1.0 + 0.75) / 3 * 0.8, abs=1e-3)
    gaps = scoring.gaps(MN, docs)
    assert [(g.doc_type, g.kind) for g in gaps] == [
        ("clinical_notes", "weak"),
        ("medical_records", "recommended"),
        ("authorization_proof", "recommended"),
    ]
    assert all(g.message.endswith(".") for g in gaps)


def test_the_best_copy_of_a_type_counts():
    assert (
        scoring.score(Requirement(("clinical_notes",)), [("clinical_notes", 0), ("clinical_notes", 900)]).strength
        == 1.0
    )


@given(
    st.lists(st.tuples(st.sampled_from(DOC_TYPES), st.integers(0, 10_000)), max_size=12),
    st.sampled_from(sorted(REQUIREMENTS)),
)
def test_scores_are_bounded_and_monotone(documents, category):
    requirement = REQUIREMENTS[category]
    result = scoring.score(requirement, documents)
    assert 0.0 <= result.completeness <= 1.0 and 0.0 <= result.strength <= 1.0
    assert result.strength <= result.completeness + 1e-9
    more = scoring.score(requirement, [*documents, *((t, 10_000) for t in requirement.required)])
    assert more.completeness == 1.0 and more.strength >= result.strength
    missing = {g.doc_type for g in scoring.gaps(requirement, documents) if g.kind == "missing"}
    assert missing == set(result.missing)
