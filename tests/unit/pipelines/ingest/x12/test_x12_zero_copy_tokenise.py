"""The zero-copy chunk path: Arrow wrapping, the ASCII trim fast path, chunk views.

The fast paths must give exactly what the plain Polars path gives (str in,
Unicode-aware strip), including the error raised for bad input.
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.x12 import X12ParseError, parse_x12, parse_x12_file
from pipelines.ingest.x12.chunks import (
    iter_chunk_views,
    iter_chunks,
    iter_stream_chunk_views,
    iter_stream_chunks,
)
from pipelines.ingest.x12.delimiters import Delimiters, find_isa
from pipelines.ingest.x12.segments import decode, text_array, tokenise
from tests.support.paths import X12_FIXTURES

FIXTURES = X12_FIXTURES
DELIMS = Delimiters(element="*", component=":", repetition="^", segment="~")
# Every ASCII control and whitespace byte, plus what segments are made of.
ASCII_ALPHABET = [chr(c) for c in range(33)] + list("ABCLPS0123*:~") + ["\x7f"]


def _tokens(text: str, ascii_: bool | None) -> pl.DataFrame | str:
    try:
        return tokenise(text_array(text.encode()), DELIMS, seg_offset=7, source="t", ascii=ascii_)
    except X12ParseError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ASCII_ALPHABET), max_size=60).map("".join))
def test_ascii_trim_fast_path_equals_the_unicode_strip(text: str) -> None:
    fast, plain = _tokens(text, True), _tokens(text, False)
    if isinstance(plain, str):
        assert fast == plain
    else:
        assert isinstance(fast, pl.DataFrame) and fast.equals(plain)
        # The str entry point (used by callers holding text) agrees as well.
        assert tokenise(text, DELIMS, seg_offset=7, source="t").equals(plain)


def test_unknown_ascii_is_checked_and_unicode_whitespace_still_stripped() -> None:
    # U+00A0 and U+2003 are whitespace to Polars' strip but not to an ASCII trim.
    text = "\u00a0ST*835*0001\u2003~\u00a0SE*2*0001~"
    seg = tokenise(text_array(text.encode()), DELIMS, seg_offset=0, source="t", ascii=None)
    assert seg["sid"].to_list() == ["ST", "SE"]
    assert seg["raw"].to_list() == ["ST*835*0001", "SE*2*0001"]


@pytest.mark.parametrize("raw", [b"ST*1~", "ST*N\u00dcLL~".encode(), b"ST*\xff\xfe~", b"ST*\xed\xa0\x80~", b""])
def test_text_array_decodes_like_decode(raw: bytes) -> None:
    array = text_array(memoryview(raw))
    assert len(array) == 1
    assert array[0].as_py() == decode(raw)


def test_valid_utf8_is_wrapped_without_copying() -> None:
    raw = b"ST*835*0001~SE*2*0001~"
    array = text_array(raw)
    assert array.buffers()[2].address == pa.py_buffer(raw).address


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=1, max_value=2000),
    st.sampled_from(
        ["oopfactory_4010_reversals_denials_cr_bom_indented.835", "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835"]
    ),
)
def test_chunk_views_hold_the_same_bytes_as_the_bytes_chunkers(chunk_bytes: int, name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    start, delims = find_isa(data, name)
    views = list(iter_chunk_views(data, start, delims, chunk_bytes))
    assert [v.data.tobytes() for v in views] == list(iter_chunks(data, start, delims, chunk_bytes))
    streamed = list(
        iter_stream_chunk_views(io.BytesIO(data[start + 5 :]).read, data[start : start + 5], delims, chunk_bytes)
    )
    assert [v.data.tobytes() for v in streamed] == list(
        iter_stream_chunks(io.BytesIO(data[start + 5 :]).read, data[start : start + 5], delims, chunk_bytes)
    )
    for view in views + streamed:
        assert view.data.readonly
        # The ASCII flag may be unknown, but when given it must be true.
        assert view.ascii in (None, True)
        if view.ascii:
            assert view.data.tobytes().isascii()


def test_non_ascii_input_is_flagged_unknown() -> None:
    data = "ISA*x~N1*PR*M\u00dcLLER~".encode()
    start, delims = 0, DELIMS
    assert [v.ascii for v in iter_chunk_views(data, start, delims, 4)] == [None]
    assert [v.ascii for v in iter_stream_chunk_views(io.BytesIO(data[5:]).read, data[:5], delims, 4)] == [None]


def test_latin1_and_utf8_files_parse_the_same_from_memory_and_from_file(tmp_path: Path) -> None:
    text = (FIXTURES / "nvmedicaid_5010_3st_denials_plb_nonfixed_isa.835").read_text(encoding="utf-8")
    for encoding in ("utf-8", "latin-1"):
        # A non-ASCII payer name and a non-breaking space after a terminator.
        raw = text.replace("N1*PR*", "N1*PR*M\u00dcLLER ", 1).replace("~", "~\u00a0", 3).encode(encoding)
        path = tmp_path / f"x_{encoding}.835"
        path.write_bytes(raw)
        from_file = parse_x12_file(path, strict_envelopes=False)
        in_memory = parse_x12(raw, source=path.name, strict_envelopes=False)
        for name, frame in from_file.tables.items():
            assert frame.equals(in_memory.tables[name]), name
        assert from_file.tables["remittances"]["payer_name"].str.starts_with("M\u00dcLLER").any()
