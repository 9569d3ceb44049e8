"""PHI redaction of derived text: each kind, the caller's terms, and properties (Hypothesis)."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from api.evidence.evidence_control.redaction import MARKER, compile_terms, date_spellings, parse_date, redact, term_kind


def red(text: str, *terms: str) -> str:
    return redact(text, terms).text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SSN 123-45-6789 on file", "SSN [SSN] on file"),
        ("ssn: 123 45 6789.", "ssn: [SSN]."),
        ("SSN:123456789", "SSN:[SSN]"),
        ("Social Security Number: 123456789", "Social Security Number: [SSN]"),
        ("claim 1234567890123 total", "claim 1234567890123 total"),  # a long number is not an SSN
    ],
)
def test_ssns(text, expected):
    assert red(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DOB: 04/02/1961", "DOB: [DOB]"),
        ("D.O.B. 1961-04-02, seen 2023-05-01", "D.O.B. [DOB], seen 2023-05-01"),
        ("Date of birth April 2, 1961", "Date of birth [DOB]"),
        ("born on 2 Apr 1961 in Ohio", "born on [DOB] in Ohio"),
        ("Birthdate:\n04021961\nService: 05/01/2023", "Birthdate:\n[DOB]\nService: 05/01/2023"),
        ("Admitted 05/01/2023. Discharged 05/03/2023.", "Admitted 05/01/2023. Discharged 05/03/2023."),
    ],
)
def test_dates_of_birth_near_birth_words_only(text, expected):
    assert red(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Member ID: W123456789", "Member ID: [MEMBER-ID]"),
        ("Subscriber # ABC-12345-X", "Subscriber # [MEMBER-ID]"),
        ("MRN 00451234 admitted", "MRN [MEMBER-ID] admitted"),
        ("Policy number: ZX99881", "Policy number: [MEMBER-ID]"),
        ("Member ID: pending", "Member ID: pending"),  # no digit: not an id
    ],
)
def test_member_ids_after_their_label(text, expected):
    assert red(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Call (555) 123-4567 today", "Call [PHONE] today"),
        ("tel 555.123.4567", "tel [PHONE]"),
        ("+1 555-123-4567", "[PHONE]"),
        ("Phone: 5551234567", "Phone: [PHONE]"),
        ("amount 1234567890", "amount 1234567890"),
    ],
)
def test_phone_numbers(text, expected):
    assert red(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lives at 12 Main Street, Springfield, IL 62704 with family", "Lives at [ADDRESS] with family"),
        ("200 Elm Ave. Apt 4B", "[ADDRESS]"),
        ("PO Box 1234", "[ADDRESS]"),
        ("Address: somewhere near the river", "Address: [ADDRESS]"),
        ("Gave 12 Units of insulin", "Gave 12 Units of insulin"),
    ],
)
def test_addresses(text, expected):
    assert red(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Patient: Jane Q. Doe", "Patient: [NAME]"),
        ("Patient Name: John O'Neil-Smith DOB: 01/02/1960", "Patient Name: [NAME] DOB: [DOB]"),
        ("Name: DOE, JANE", "Name: [NAME]"),
        ("Subscriber: Mary Major", "Subscriber: [NAME]"),
        ("Payer name: Aetna", "Payer name: Aetna"),  # a payer is not a patient
        ("the patient: improved", "the patient: improved"),
    ],
)
def test_names_after_patient_labels(text, expected):
    assert red(text) == expected


def test_emails():
    assert red("write jane.doe+x@example.org now") == "write [EMAIL] now"


def test_caller_terms_name_each_word_and_any_spelling():
    text = "Jane Doe was seen. Ms. Doe agreed. JANE  DOE signed. Doe, Jane."
    assert red(text, "Jane Doe") == "[NAME] was seen. Ms. [NAME] agreed. [NAME] signed. [NAME], [NAME]."


def test_caller_terms_member_ids_with_other_separators():
    assert red("id W12-3456 and W12 3456 and w123456", "W12-3456") == "id [MEMBER-ID] and [MEMBER-ID] and [MEMBER-ID]"


def test_caller_date_of_birth_in_every_usual_spelling():
    text = "4/2/1961; 04/02/1961; 1961-04-02; April 2, 1961; Apr 2, 1961; 04021961; 2 April 1961"
    out = red(text, "04/02/1961")
    assert re.sub(r"\[DOB\]", "", out).strip("; ").replace("; ", "") == ""


def test_term_kinds_and_parsing():
    assert term_kind("Jane Doe") == "name"
    assert term_kind("W123") == "member_id"
    assert term_kind("1961-04-02") == "dob"
    assert parse_date("April 2, 1961") == date(1961, 4, 2)
    assert parse_date("not a date") is None
    assert "04/02/1961" in date_spellings(date(1961, 4, 2))
    assert compile_terms(["x", " ", ""]) == []  # too short to redact safely


def test_counts_by_kind():
    result = redact("Patient: Jane Doe SSN 123-45-6789 DOB 01/02/1960", ["W1234"])
    assert result.counts == {"dob": 1, "name": 1, "ssn": 1}


def test_a_marker_is_never_redacted_again():
    assert red("[NAME] and [DOB]", "name", "dob") == "[NAME] and [DOB]"


def test_words_within_words_are_left_alone():
    assert red("Doeskin gloves", "Doe") == "Doeskin gloves"


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", max_size=60)
_DIGIT = st.integers(0, 9).map(str)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.lists(st.text(min_size=2, max_size=20), max_size=4))
def test_redaction_is_idempotent(text, terms):
    once = redact(text, terms).text
    assert redact(once, terms).text == once


@settings(max_examples=200, deadline=None)
@given(_WORDS, _WORDS, st.tuples(*[st.integers(0, 9)] * 9))
def test_any_ssn_in_prose_is_removed(before, after, digits):
    d = "".join(map(str, digits))
    ssn = f"{d[:3]}-{d[3:5]}-{d[5:]}"
    out = red(f"{before} {ssn} {after}")
    assert ssn not in out and "[SSN]" in out


@settings(max_examples=200, deadline=None)
@given(_WORDS, _WORDS, st.from_regex(r"[A-Za-z][A-Za-z0-9]{2,12}", fullmatch=True))
def test_any_caller_term_is_removed(before, after, term):
    assume(not MARKER.search(f"[{term.upper()}]"))
    out = red(f"{before} {term} {after}", term)
    pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(term) + r"(?![A-Za-z0-9])", re.IGNORECASE)
    assert not pattern.search(MARKER.sub(" ", out))


@settings(max_examples=200, deadline=None)
@given(_WORDS)
def test_plain_lowercase_prose_is_left_unchanged(text):
    assert red(text) == text


@settings(max_examples=100, deadline=None)
@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2030, 12, 31)), _WORDS)
def test_a_known_date_of_birth_is_removed_in_every_spelling(day, filler):
    for spelling in date_spellings(day):
        out = red(f"{filler} {spelling} {filler}", day.isoformat())
        assert spelling not in out, spelling
