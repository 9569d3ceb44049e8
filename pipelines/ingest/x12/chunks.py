"""Cut an X12 byte stream into chunks that end on transaction (SE) boundaries.

Chunks let the parser keep its working memory flat for large files: every
chunk holds whole ST..SE transaction sets (plus any envelope segments around
them), so each one can be tokenised and turned into tables on its own.

The ``*_views`` generators yield :class:`ChunkView` s, read-only memoryviews
into the data they were given, so the parser can hand each chunk to
Arrow/Polars without copying it; the plain generators yield ``bytes`` for
callers that want owned data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pipelines.ingest.x12.delimiters import Delimiters

DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024


def _se_end_pattern(delims: Delimiters) -> re.Pattern[bytes]:
    term = re.escape(delims.segment.encode("latin-1"))
    sep = re.escape(delims.element.encode("latin-1"))
    not_term = b"[^" + term + b"]*"
    # A terminator, optional whitespace, then a whole SE segment.
    return re.compile(term + rb"\s*SE" + sep + not_term + term)


@dataclass(frozen=True, slots=True)
class ChunkView:
    """One chunk, not copied: ``data`` views the caller's bytes.

    ``ascii`` is True when the bytes are known to be pure ASCII (checked once
    per buffer, far cheaper than per chunk in Arrow), None when not checked.
    """

    data: memoryview
    ascii: bool | None


def _ascii(buf: bytes | memoryview) -> bool | None:
    # bytes.isascii scans at memory speed; a memoryview has no such method.
    return buf.isascii() if isinstance(buf, bytes) else None


def iter_chunk_views(
    data: bytes | memoryview, start: int, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[ChunkView]:
    """Yield consecutive views of ``data[start:]``, each ending just after an SE segment.

    The last chunk takes whatever remains (GE/IEA, or a truncated tail that the
    envelope check will reject).
    """
    pattern = _se_end_pattern(delims)
    view = memoryview(data).toreadonly()
    ascii_ = _ascii(data) or None  # non-ASCII somewhere says nothing about one chunk
    end = len(view)
    pos = start
    while pos < end:
        target = pos + chunk_bytes
        if target >= end:
            yield ChunkView(view[pos:end], ascii_)
            return
        # Step back one byte so a terminator sitting exactly at target is seen.
        match = pattern.search(data, target - 1)
        if match is None:
            yield ChunkView(view[pos:end], ascii_)
            return
        cut = match.end()
        yield ChunkView(view[pos:cut], ascii_)
        pos = cut


def iter_chunks(
    data: bytes | memoryview, start: int, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[bytes]:
    """Like :func:`iter_chunk_views`, yielding each chunk as ``bytes``."""
    for chunk in iter_chunk_views(data, start, delims, chunk_bytes):
        yield chunk.data.tobytes()


def iter_stream_chunk_views(
    read: Callable[[int], bytes], head: bytes, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[ChunkView]:
    """Like :func:`iter_chunk_views`, but pulling blocks from ``read`` (a file's read method).

    ``head`` is what was already read, starting at the ISA. At most about two
    chunks are buffered, so memory does not grow with the file. Each yielded
    view stays valid after the generator moves on (it keeps its block alive).
    """
    pattern = _se_end_pattern(delims)
    # An immutable buffer plus a read position: cutting a chunk copies nothing,
    # and each byte is copied once, when the unread tail is joined to a new block.
    buf = bytes(head)
    ascii_ = buf.isascii() or None
    pos = 0
    eof = False
    while True:
        match = pattern.search(buf, pos + chunk_bytes - 1) if len(buf) - pos >= chunk_bytes else None
        if match is not None:
            cut = match.end()
            yield ChunkView(memoryview(buf)[pos:cut], ascii_)
            pos = cut
            continue
        if eof:
            if pos < len(buf):
                yield ChunkView(memoryview(buf)[pos:], ascii_)
            return
        block = read(chunk_bytes)
        if block:
            buf = b"".join((memoryview(buf)[pos:], block))
            ascii_ = buf.isascii() or None
            pos = 0
        else:
            eof = True


def iter_stream_chunks(
    read: Callable[[int], bytes], head: bytes, delims: Delimiters, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> Iterator[bytes]:
    """Like :func:`iter_stream_chunk_views`, yielding each chunk as ``bytes``."""
    for chunk in iter_stream_chunk_views(read, head, delims, chunk_bytes):
        yield chunk.data.tobytes()
