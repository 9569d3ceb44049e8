"""Letter templates (every category x level renders, nothing left unfilled), codes in words, cover forms."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest

from api.denials.appeal_assembly import codes, cover_forms, letter

FACTS = letter.ClaimFacts(
    payer="NORTHWIND HEALTH PLAN",
    claim_key="PCN-0001",
    payer_claim_number="ICN-77",
    service_date=date(2024, 3, 2),
    remittance_date=date(2024, 4, 1),
    billed_amount=Decimal("2400.00"),
    amount_at_stake=Decimal("1250.00"),
    carc="50",
    rarcs=("N115", "M62", "ZZ9"),
    group_code="CO",
    denial_category="medical_necessity",
)
ENTRIES = [letter.IndexEntry("Progress notes", "clinical_notes"), letter.IndexEntry("Policy LCD L123", "payer_policy")]
REQUIRED_CATEGORIES = {"medical_necessity", "authorization", "timely_filing", "coding", "duplicate", "default"}


def test_the_required_categories_have_a_template_at_every_level():
    for category in REQUIRED_CATEGORIES:
        for level in letter.LEVELS:
            assert letter.TEMPLATES[f"{category}.{level}"].version


@pytest.mark.parametrize("category", sorted(codes.CATEGORIES))
@pytest.mark.parametrize("level", letter.LEVELS)
def test_every_category_and_level_renders_with_no_placeholder_left(category, level):
    facts = FACTS.__class__(**{**FACTS.__dict__, "denial_category": category})
    out = letter.render_letter(facts, level, ENTRIES)
    assert "$" + "{" not in out.text and not re.search(r"\$[a-z_]", out.text)
    assert out.template_key in {f"{category}.{level}", f"default.{level}"}
    assert out.template_version == letter.TEMPLATES[out.template_key].version
    for fact in ("ICN-77", "PCN-0001", "NORTHWIND HEALTH PLAN", "2024-03-02", "2024-04-01", "$2,400.00", "$1,250.00"):
        assert fact in out.text
    assert "1. Progress notes (clinical notes)" in out.text and "2. Policy LCD L123 (payer policy)" in out.text
    assert letter.POLICY_REFERENCE in out.text
    assert letter.LEVEL_TITLES[level] in out.text


def test_the_codes_are_explained_in_words_from_the_seeds():
    text = letter.render_letter(FACTS, "first_level", ENTRIES).text
    assert "group code CO (Contractual Obligations)" in text
    assert "(CARC) 50: Not deemed a medical necessity by the payer." in text
    assert f"(RARC) M62: {codes.RARCS['M62']}." in text
    assert "(RARC) ZZ9, as stated on the remittance advice." in text  # not in the reference list
    assert "Medical necessity: Payer judged the service" in text


def test_missing_facts_say_not_on_record_and_no_evidence_says_so():
    bare = letter.ClaimFacts("P", "K", None, None, None, None, Decimal("1.00"), None, (), None, None)
    text = letter.render_letter(bare, "second_level", []).text
    assert "Payer claim number: not on record" in text and "no claim adjustment reason code" in text
    assert "No documents are enclosed" in text
    assert letter.render_letter(bare, "second_level", []).template_key == "default.second_level"


def test_a_template_with_an_unknown_placeholder_or_no_version_is_refused():
    with pytest.raises(letter.TemplateDataError):
        letter.parse_template(
            "coding.first_level.txt", "Template: coding.first_level\nVersion: 1\n---\n${patient_name}"
        )
    with pytest.raises(letter.TemplateDataError):
        letter.parse_template("coding.first_level.txt", "Template: coding.first_level\n---\n${payer}")


def test_cover_forms_by_payer_name_then_payer_class_else_none():
    facts = letter.fill(FACTS, "first_level", ENTRIES)
    northwind = cover_forms.cover_form("Northwind Health Plan", "commercial", "first_level", facts)
    assert northwind is not None and ("Claim number", "ICN-77") in northwind.fields
    assert ("Member name", "") in northwind.fields  # patient identity is completed by hand
    medicare = cover_forms.cover_form("NOVITAS", "medicare", "second_level", facts)
    assert medicare is not None and medicare.form_id == "cms_20033"
    assert cover_forms.cover_form("ACME HEALTH", "commercial", "first_level", facts) is None
