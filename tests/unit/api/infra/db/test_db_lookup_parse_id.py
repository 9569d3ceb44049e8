"""`parse_id`: an id written as text (inside a payload reference) is canonical decimal within the
BIGINT range, or nothing (issue 23, finding 11: 2^64 overflowed in the database as a 500)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.infra.db.lookup import ID_MAX, parse_id


@given(st.integers(min_value=1, max_value=ID_MAX))
def test_every_id_in_range_reads_back(ident):
    assert parse_id(str(ident)) == ident


@given(st.one_of(st.integers(max_value=0), st.integers(min_value=ID_MAX + 1, max_value=2**400)))
def test_numbers_outside_the_id_range_are_no_id(number):
    assert parse_id(str(number)) is None


@given(st.text(max_size=30))
def test_any_text_is_an_id_only_in_its_canonical_spelling(text):
    ident = parse_id(text)
    assert ident is None or (str(ident) == text and 1 <= ident <= ID_MAX)


def test_the_edges_and_other_spellings():
    assert parse_id(str(ID_MAX)) == 2**63 - 1
    for text in (str(2**63), str(2**64), "-1", "0", "", "007", "+7", " 7", "7 ", "1_000", "٣", "9" * 5000):
        assert parse_id(text) is None, text
