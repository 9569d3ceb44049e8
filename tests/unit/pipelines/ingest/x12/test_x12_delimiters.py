"""Delimiters, whitespace, preambles, multiple interchanges and chunked reading."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.x12 import parse_x12, parse_x12_file
from pipelines.ingest.x12.chunks import iter_chunks, iter_stream_chunks
from pipelines.ingest.x12.delimiters import find_isa
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES
DENTAL = "stupidedi_5010_multi_claims_dental_single_check.835"


def reencode(text: str, *, element: str, component: str, terminator: str, after: str = "", indent: str = "") -> str:
    """Rewrite a '*', ':', '~' file with other separators and whitespace."""
    segments = [s.strip() for s in text.split("~") if s.strip()]
    out = []
    for seg in segments:
        seg = seg.replace(":", component).replace("*", element)
        out.append(indent + seg + terminator + after)
    return "".join(out)


def tables_equal(a, b) -> None:
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        assert a.tables[name].equals(b.tables[name]), name
    assert a.quality.equals(b.quality)


@pytest.mark.parametrize(
    ("element", "component", "terminator", "after", "indent"),
    [
        ("+", ">", "'", "", ""),
        ("|", "^", "\n", "", ""),
        ("+", ">", "\r", "\n", ""),  # CR/LF terminated
        ("*", ":", "~", "\r\n", "    "),  # pretty-printed
        ("!", "\\", "~", "\n", "\t"),
    ],
)
def test_same_content_with_other_delimiters_gives_same_tables(element, component, terminator, after, indent) -> None:
    original = (FIXTURES / DENTAL).read_text()
    expected = parse_x12(original)
    variant = reencode(
        original, element=element, component=component, terminator=terminator, after=after, indent=indent
    )
    tables_equal(parse_x12(variant), expected)


def test_bom_preamble_and_indentation() -> None:
    original = (FIXTURES / DENTAL).read_text()
    variant = "\ufeffThis file came from the payer portal.\nISA is below.\n\n" + reencode(
        original, element="*", component=":", terminator="~", after="\n", indent="   "
    )
    tables_equal(parse_x12(variant.encode("utf-8")), parse_x12(original))


def test_non_fixed_width_isa_is_read_by_walking_separators() -> None:
    data = (FIXTURES / "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835").read_bytes()
    start, delims = find_isa(data, "nv")
    assert start == 0
    assert (delims.element, delims.component, delims.repetition, delims.segment) == ("*", ":", "^", "~")
    # Byte 104/105 of this file are not the separators a fixed-width reader would assume.
    assert chr(data[104]) != ":"


def test_plus_delimited_crlf_file_separators() -> None:
    data = (FIXTURES / "stupidedi_5010_plus_delims_crlf_preamble.835").read_bytes()
    start, delims = find_isa(data, "plus")
    assert start > 0  # prose preamble skipped
    assert (delims.element, delims.component, delims.repetition, delims.segment) == ("+", ">", "~", "\r")


def test_multi_interchange_file_keeps_each_envelope() -> None:
    result = parse_x12_file(FIXTURES / "oopfactory_5010_three_interchanges_masked.835")
    remits = result.tables["remittances"]
    assert result.interchanges == 3
    assert remits["transaction_control_number"].to_list() == ["8001", "9001", "10001"]
    assert remits["sender_id"].to_list() == ["MMISNEBR"] * 3


def test_interchange_with_another_component_separator_is_rejected() -> None:
    one = (FIXTURES / "pyx12_5010_denial_cas_lq.835").read_text()
    second = one.replace("*P*:~", "*P*>~", 1)
    from pipelines.ingest.x12 import X12ParseError

    with pytest.raises(X12ParseError) as err:
        parse_x12(one + second)
    assert err.value.segment_id == "ISA" and err.value.segment_number == 36


@pytest.mark.parametrize(
    "name", [DENTAL, "oopfactory_4010_large_6st_masked.835", "oopfactory_5010_three_interchanges_masked.835"]
)
def test_small_chunks_give_the_same_tables_as_one_chunk(name: str) -> None:
    path = FIXTURES / name
    whole = parse_x12_file(path, strict_envelopes=False)
    chunked = parse_x12_file(path, strict_envelopes=False, chunk_bytes=700)
    tables_equal(chunked, whole)
    assert (chunked.segments, chunked.transactions) == (whole.segments, whole.transactions)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=1, max_value=3000),
    st.sampled_from(
        [
            "oopfactory_4010_reversals_denials_cr_bom_indented.835",
            "stupidedi_5010_plus_delims_crlf_preamble.835",
            "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835",
        ]
    ),
)
def test_chunkers_cut_only_after_se_and_lose_nothing(chunk_bytes: int, name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    start, delims = find_isa(data, name)
    in_memory = list(iter_chunks(data, start, delims, chunk_bytes))
    stream = io.BytesIO(data[start + 5 :])
    streamed = list(iter_stream_chunks(stream.read, data[start : start + 5], delims, chunk_bytes))
    for chunks in (in_memory, streamed):
        assert b"".join(chunks) == data[start:]
        for chunk in chunks[:-1]:
            last = [s for s in chunk.decode("utf-8").split(delims.segment) if s.strip()][-1].strip()
            assert last.startswith("SE" + delims.element)
    assert in_memory == streamed
