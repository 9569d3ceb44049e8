"""Tokenise a chunk of X12 text into a Polars frame of segments.

The frame has one row per non-empty segment: ``seg_no`` (1-based position in
the file), ``sid`` (segment id) and ``raw``; :func:`with_elements` turns raw
into ``el``, the list of element strings (index 0 is the segment id, so that
``el[n]`` is element n as the X12 guides number it).
All of this runs inside Polars, not in a per-segment Python loop.
"""

from __future__ import annotations

import re

import polars as pl

from pipelines.ingest.x12.delimiters import Delimiters
from pipelines.ingest.x12.errors import X12ParseError


def decode(chunk: bytes) -> str:
    """Decode chunk bytes; X12 is ASCII-based, latin-1 keeps any stray byte instead of failing."""
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError:
        return chunk.decode("latin-1")


def tokenise(text: str, delims: Delimiters, *, seg_offset: int, source: str) -> pl.DataFrame:
    """Split ``text`` into segments; ``seg_offset`` is the number of segments before this chunk.

    Returns ``seg_no``, ``sid`` and ``raw`` (the whole segment text); elements
    are split later, per segment type, with :func:`with_elements`.
    """
    raw = (
        pl.Series("raw", [text], dtype=pl.String)
        .str.split(delims.segment)
        .explode()
        .str.strip_chars()
    )
    sep = re.escape(delims.element)
    frame = (
        pl.DataFrame({"raw": raw})
        .filter(pl.col("raw").str.len_bytes() > 0)
        .with_row_index("seg_no", offset=seg_offset + 1)
        .select(
            pl.col("seg_no").cast(pl.Int64),
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
