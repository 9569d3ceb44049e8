"""Tokenise a chunk of X12 text into a Polars frame of segments.

The frame has one row per non-empty segment: ``seg_no`` (1-based position in
the file), ``sid`` (segment id) and ``raw``; :func:`with_elements` turns raw
into ``el``, the list of element strings (index 0 is the segment id, so that
``el[n]`` is element n as the X12 guides number it).
Cutting the chunk into segments runs in Arrow, straight from the chunk's bytes;
the rest runs inside Polars. Nothing is a per-segment Python loop.
"""

from __future__ import annotations

import re

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.ingest.x12.delimiters import Delimiters
from pipelines.ingest.x12.errors import X12ParseError


def decode(chunk: bytes) -> str:
    """Decode chunk bytes; X12 is ASCII-based, latin-1 keeps any stray byte instead of failing."""
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError:
        return chunk.decode("latin-1")


def text_array(chunk: bytes | memoryview) -> pa.LargeStringArray:
    """The chunk as a one-value Arrow string array, decoded like :func:`decode`.

    Valid UTF-8 (the normal case) is wrapped without copying: an 8 MiB chunk
    copied through Python objects costs more than splitting it.
    """
    offsets = pa.array([0, len(chunk)], pa.int64()).buffers()[1]
    array = pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(chunk))
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return pa.array([decode(bytes(chunk))], pa.large_string())
    return array


def _split_segments(text: pa.LargeStringArray, terminator: str, ascii_: bool | None) -> pl.Series:
    """Segment texts of a one-value array, whitespace around each stripped."""
    pieces = pc.split_pattern(text, terminator).flatten()
    if ascii_ is None:
        ascii_ = pc.all(pc.string_is_ascii(text)).as_py()
    if ascii_:
        # Same result as Polars' strip_chars() on ASCII (space and \t..\r), with less
        # copying; non-ASCII text keeps the Unicode-aware Polars strip.
        return pl.Series("raw", pc.ascii_trim_whitespace(pieces))
    return pl.Series("raw", pieces).str.strip_chars()


def tokenise(
    text: str | pa.LargeStringArray, delims: Delimiters, *, seg_offset: int, source: str, ascii: bool | None = None
) -> pl.DataFrame:
    """Split ``text`` into segments; ``seg_offset`` is the number of segments before this chunk.

    ``text`` is a str or a one-value Arrow array (see :func:`text_array`);
    ``ascii`` says whether it is known to be pure ASCII (None: check here).
    Returns ``seg_no``, ``sid`` and ``raw`` (the whole segment text); elements
    are split later, per segment type, with :func:`with_elements`.
    """
    if isinstance(text, str):
        text = pa.array([text], pa.large_string())
    raw = _split_segments(text, delims.segment, ascii)
    sep = re.escape(delims.element)
    frame = (
        pl.DataFrame({"raw": raw})
        .filter(pl.col("raw").str.len_bytes() > 0)
        .select(
            pl.int_range(seg_offset + 1, seg_offset + 1 + pl.len(), dtype=pl.Int64).alias("seg_no"),
            # Cheaper than a capturing regex: take the head, then validate with contains.
            pl.col("raw").str.head(3).str.strip_chars_end(delims.element).alias("sid"),
            pl.col("raw").str.contains(f"^[A-Z][A-Z0-9]{{1,2}}(?:{sep}|$)").alias("_ok"),
            "raw",
        )
    )
    bad = frame.filter(~pl.col("_ok"))
    if bad.height:
        raise X12ParseError(
            source,
            "invalid segment id (expected 2-3 upper-case letters/digits before the element "
            "separator); the data is not X12 or a delimiter is wrong",
            segment_number=int(bad["seg_no"][0]),
            expected="a segment id such as CLP or SVC",
        )
    frame = frame.drop("_ok")
    return frame


def with_elements(frame: pl.DataFrame, delims: Delimiters) -> pl.DataFrame:
    """Replace ``raw`` by ``el``: the list of elements, ``el[0]`` being the segment id."""
    return frame.with_columns(pl.col("raw").str.split(delims.element).alias("el")).drop("raw")
