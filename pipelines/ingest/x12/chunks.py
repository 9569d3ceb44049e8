"""Cut an X12 byte stream into chunks that end on transaction (SE) boundaries.

Chunks let the parser keep its working memory flat for large files: every
chunk holds whole ST..SE transaction sets (plus any envelope segments around
them), so each one can be tokenised and turned into tables on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from pipelines.ingest.x12.delimiters import Delimiters

DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024


def _se_end_pattern(delims: Delimiters) -> re.Pattern[bytes]:
    term = re.escape(delims.segment.encode("latin-1"))
    sep = re.escape(delims.element.encode("latin-1"))
    not_term = b"[^" + term + b"]*"
    # A terminator, optional whitespace, then a whole SE segment.
    return re.compile(term + rb"\s*SE" + sep + not_term + term)


def iter_chunks(
    data: bytes | memoryview, start: int, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[bytes]:
    """Yield consecutive byte chunks of ``data[start:]``, each ending just after an SE segment.

    The last chunk takes whatever remains (GE/IEA, or a truncated tail that the
    envelope check will reject).
    """
    pattern = _se_end_pattern(delims)
    end = len(data)
    pos = start
    while pos < end:
        target = pos + chunk_bytes
        if target >= end:
            yield bytes(data[pos:end])
            return
        # Step back one byte so a terminator sitting exactly at target is seen.
        match = pattern.search(data, target - 1)
        if match is None:
            yield bytes(data[pos:end])
            return
        cut = match.end()
        yield bytes(data[pos:cut])
        pos = cut


def iter_stream_chunks(
    read: Callable[[int], bytes], head: bytes, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[bytes]:
    """Like :func:`iter_chunks`, but pulling blocks from ``read`` (a file's read method).

    ``head`` is what was already read, starting at the ISA. At most about two
    chunks are buffered, so memory does not grow with the file.
    """
    pattern = _se_end_pattern(delims)
    buf = bytearray(head)
    eof = False
    while True:
        match = pattern.search(buf, chunk_bytes - 1) if len(buf) >= chunk_bytes else None
        if match is not None:
            cut = match.end()
            yield bytes(buf[:cut])
            del buf[:cut]
            continue
        if eof:
            if buf:
                yield bytes(buf)
            return
        block = read(chunk_bytes)
        if block:
            buf += block
        else:
            eof = True
