"""The common shape every reader hands to validation."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pipelines.ingest.tabular.headers import HeaderMatch


@dataclass(frozen=True, slots=True)
class RawTable:
    """Mapped source columns as strings, renamed to canonical fields, plus ``row_number``."""

    frame: pl.DataFrame
    header: HeaderMatch
    header_line: int
    """1-based line (or sheet row / JSON item 0) of the header in the source."""
    encoding: str


def select_mapped(frame: pl.DataFrame, header: HeaderMatch) -> pl.DataFrame:
    """Keep the mapped positional columns of ``frame`` and name them by field."""
    names = frame.columns
    return frame.select(
        [pl.col(names[pos]).cast(pl.String).alias(field) for pos, field in header.columns.items() if pos < len(names)]
    )
