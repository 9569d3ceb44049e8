"""Reading an export is bounded (issue 23): the header line, every record and the data lines have caps
named in the refusal, and the delimiter is found in one linear pass per candidate (never csv.Sniffer,
whose regexes are quadratic on a long header line)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.platform.migration_factory.rows import ExportLimits, parse_export
from pipelines.ingest.detect import delimiter_of

HEADER = "Claim Number,Payer,Denied Amount,Billed Amount"
LINE = "PCN-{n},Acme Health,10.00,100.00"


def _csv(header: str, *lines: str) -> bytes:
    return "\n".join([header, *lines]).encode()


def _wide_header(chars: int, delimiter: str = ",") -> str:
    """The four columns a denials export needs, then unknown columns up to `chars` characters."""
    head = HEADER.replace(",", delimiter)
    filler = delimiter.join(f"extra column {i:05d}" for i in range(chars // 19 + 1))
    return (head + delimiter + filler)[:chars]


def test_a_60_kb_header_line_is_refused_naming_the_cap():
    content = _csv(_wide_header(60_000), LINE.format(n=1))
    with pytest.raises(InvalidInput) as raised:
        parse_export("denials", content)
    message = str(raised.value)
    assert "the header line" in message and "MIGRATION_MAX_HEADER_CHARS" in message and "8192" in message


@pytest.mark.parametrize("delimiter", [",", ";", "|", "\t"])
def test_a_60_kb_header_under_a_raised_cap_is_read_with_its_delimiter(delimiter):
    """Linear detection: the same 60 KB line that froze csv.Sniffer is read, all of its columns."""
    header = _wide_header(60_000, delimiter)
    content = _csv(header, LINE.format(n=1).replace(",", delimiter))
    parsed = parse_export("denials", content, limits=ExportLimits(header_chars=70_000, line_chars=70_000))
    assert parsed.columns == {
        "claimKey": "Claim Number",
        "payer": "Payer",
        "deniedAmount": "Denied Amount",
        "billedAmount": "Billed Amount",
    }
    assert len(parsed.ignored_columns) == len(header.split(delimiter)) - 4
    assert [row.values["claimKey"] for row in parsed.rows] == ["PCN-1"]


def test_a_header_at_the_cap_is_read():
    header = _wide_header(8_192)
    parsed = parse_export("denials", _csv(header, LINE.format(n=1)))
    assert len(header) == 8_192 and parsed.rows[0].valid


def test_a_line_of_a_million_delimiters_is_refused_by_its_line_number():
    content = _csv(HEADER, LINE.format(n=1), "," * 1_000_000)
    with pytest.raises(InvalidInput) as raised:
        parse_export("denials", content)
    assert "line 3 of 'file'" in str(raised.value) and "MIGRATION_MAX_LINE_CHARS" in str(raised.value)


def test_a_record_spanning_many_short_lines_is_capped_as_a_whole():
    """A quoted cell may hold line breaks; its physical lines count together toward the cap."""
    spanning = 'PCN-2,"' + "\n".join(["x" * 80] * 300) + '",10.00,100.00'
    content = _csv(HEADER, LINE.format(n=1), spanning)
    with pytest.raises(InvalidInput, match="line 3 of 'file' is longer than 16384 characters"):
        parse_export("denials", content)
    parsed = parse_export("denials", content, limits=ExportLimits(line_chars=30_000))
    assert [row.row_number for row in parsed.rows] == [2, 302]


def test_more_data_lines_than_the_cap_are_refused_naming_it():
    content = _csv(HEADER, *(LINE.format(n=n) for n in range(4)))
    assert len(parse_export("denials", content, limits=ExportLimits(rows=4)).rows) == 4
    with pytest.raises(InvalidInput, match=r"more than 3 data lines \(MIGRATION_MAX_ROWS\)"):
        parse_export("denials", content, limits=ExportLimits(rows=3))


_CELL = st.text(alphabet="abcXYZ019 .-\"'", min_size=1, max_size=8).filter(str.strip)


@given(
    st.sampled_from([",", ";", "|", "\t"]),
    st.integers(min_value=2, max_value=6).flatmap(
        lambda width: st.lists(st.lists(_CELL, min_size=width, max_size=width), min_size=1, max_size=6)
    ),
)
def test_the_delimiter_a_table_was_written_with_is_the_one_found(delimiter, table):
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(table)
    assert delimiter_of(out.getvalue().splitlines()) == delimiter


def test_text_that_no_candidate_splits_has_no_delimiter():
    assert delimiter_of(["just one column", "still one"]) is None
    assert delimiter_of([]) is None
