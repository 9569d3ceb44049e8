"""The one exception type the X12 parser raises for bad input."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: raising an error needs no Polars
    import polars as pl


class X12ParseError(ValueError):
    """Input that is not a well-formed X12 interchange.

    The message names the source, the 1-based segment position in the file and
    the segment id, plus what was expected. It never quotes element values that
    could be PHI; only control numbers, counts and segment ids appear.
    """

    def __init__(
        self,
        source: str,
        detail: str,
        *,
        segment_number: int | None = None,
        segment_id: str | None = None,
        expected: str | None = None,
    ) -> None:
        self.source = source
        self.segment_number = segment_number
        self.segment_id = segment_id
        self.expected = expected
        self.detail = detail
        if segment_number is not None:
            where = f"segment {segment_number}" + (f" ({segment_id})" if segment_id else "")
            message = f"{source}: {where}: {detail}"
        else:
            message = f"{source}: {detail}"
        super().__init__(message)


def reject_first(bad: pl.DataFrame, source: str, detail: str, *, expected: str, segment_id: str | None = None) -> None:
    """Raise for the first offending segment of ``bad`` (a frame with ``seg_no`` and ``sid``), if any.

    The vectorised extractors find every bad segment at once; the error names the first one,
    as a segment-by-segment reader would."""
    if bad.height:
        raise X12ParseError(
            source,
            detail,
            segment_number=int(bad["seg_no"][0]),
            segment_id=segment_id or str(bad["sid"][0]),
            expected=expected,
        )
