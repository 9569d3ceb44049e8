"""File inputs for upload procedures (tRPC v11 FormData and octet-stream inputs), streamed to disk.

An upload procedure (declared `accepts_files=True`) receives a dict: for
multipart bodies the form fields, with each file as an `UploadedFile`; for an
`application/octet-stream` body `{"file": UploadedFile}` with the name taken
from the `X-Filename` header or the `filename` query parameter. JSON callers
may instead send the content base64-encoded in the input object.

Files never sit whole in memory: the body is read chunk by chunk and each file
part is written to a spool file (0600, in a spool directory next to the landing
zone so that storing it there is a link, not a copy) while its SHA-256 is
computed. Memory stays within a few chunks plus the form fields, which are
capped. The router deletes the spool files once the call is answered.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Annotated, Any

import orjson
from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from api.infra.private_files import private_dir
from api.rpc.errors import RpcError

MAX_FIELD_BYTES = 64 * 1024  # a non-file form field (profile name, filename): small by nature
MAX_PART_HEADER_BYTES = 16 * 1024
SPOOL_FILE_MODE = 0o600


@dataclass(frozen=True)
class UploadedFile:
    """A file the router received: its bytes are in the spool file `path`, hashed on the way in."""

    filename: str
    content_type: str
    path: Path
    size: int
    sha256: str

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()


def require_file_part(value: Any) -> UploadedFile:
    """The validator of a file field: only a spooled part is a file (a JSON string is not)."""
    if isinstance(value, UploadedFile):
        return value
    raise ValueError(
        "expected a file part (multipart/form-data or application/octet-stream); "
        "JSON callers send 'filename' and 'contentBase64' instead"
    )


#: The one field type upload procedures use for a file part (ingestion's uploads, migrationFactory's export).
UploadedFileField = Annotated[
    UploadedFile,
    PlainValidator(require_file_part),
    PlainSerializer(lambda f: {"filename": f.filename, "sha256": f.sha256}),
    WithJsonSchema({"type": "string", "format": "binary", "description": "The file (multipart part named 'file')"}),
]


class SpoolWriter:
    """One spool file being written: size, SHA-256 and the limit checked as chunks arrive."""

    def __init__(self, spool_dir: Path, limit: int, spooled: list[Path]):
        private_dir(spool_dir)  # it and any parent it creates (the landing zone) 0700, whatever the umask
        self.path = spool_dir / f"upload-{uuid.uuid4().hex}"
        spooled.append(self.path)  # registered before it exists: the router removes it whatever happens
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SPOOL_FILE_MODE)
        self._fh = os.fdopen(fd, "wb")
        self._hash = hashlib.sha256()
        self.size = 0
        self._limit = limit

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > self._limit:
            self._fh.close()
            raise too_large(self._limit)
        self._hash.update(chunk)
        self._fh.write(chunk)

    def finish(self, filename: str, content_type: str) -> UploadedFile:
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        return UploadedFile(filename, content_type, self.path, self.size, self._hash.hexdigest())


def too_large(limit: int) -> RpcError:
    return RpcError("PAYLOAD_TOO_LARGE", f"The request body exceeds the limit of {limit} bytes for this procedure")


@dataclass
class SpoolContext:
    """Where spool files go, the body limit, and every spool file made for one call (to remove after)."""

    spool_dir: Path
    limit: int
    spooled: list[Path] = field(default_factory=list)

    def writer(self) -> SpoolWriter:
        return SpoolWriter(self.spool_dir, self.limit, self.spooled)

    def cleanup(self) -> None:
        for path in self.spooled:
            path.unlink(missing_ok=True)


async def spool_octet_stream(chunks: AsyncIterator[bytes], filename: str, spool: SpoolContext) -> dict[str, Any]:
    writer = spool.writer()
    async for chunk in chunks:
        writer.write(chunk)
    return {"file": writer.finish(filename, "application/octet-stream")}


_BOUNDARY = re.compile(r'boundary="?([^";]{1,200})"?', re.IGNORECASE)


async def spool_multipart(
    chunks: AsyncIterator[bytes], content_type_header: str, spool: SpoolContext
) -> dict[str, Any]:
    """Parse multipart/form-data as it arrives: file parts to spool files, fields (capped) in memory."""
    match = _BOUNDARY.search(content_type_header)
    if match is None:
        raise RpcError("BAD_REQUEST", "The multipart body has no boundary")
    parser = _MultipartParser(match.group(1).encode("latin-1"), spool)
    total = 0
    async for chunk in chunks:
        total += len(chunk)
        if total > spool.limit:
            raise too_large(spool.limit)
        parser.feed(chunk)
    return parser.close()


class _MultipartParser:
    """A push parser: `feed` chunks, `close` for the fields. Keeps at most one chunk plus a delimiter."""

    def __init__(self, boundary: bytes, spool: SpoolContext):
        self._delimiter = b"\r\n--" + boundary
        self._spool = spool
        # The body starts with "--boundary" (no CRLF before it): pretend one was there.
        self._buffer = b"\r\n"
        self._state = "preamble"  # preamble -> headers -> body -> headers ... -> done
        self._fields: dict[str, Any] = {}
        self._part: _Part | None = None

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        while self._step():
            pass

    def _step(self) -> bool:
        """Consume what the buffer allows; True when another step may progress."""
        if self._state == "preamble":
            at = self._buffer.find(self._delimiter)
            if at < 0:
                self._buffer = self._buffer[-len(self._delimiter) :]
                return False
            self._buffer = self._buffer[at + len(self._delimiter) :]
            self._state = "after_delimiter"
            return True
        if self._state == "after_delimiter":
            if len(self._buffer) < 2:
                return False
            if self._buffer.startswith(b"--"):
                self._state, self._buffer = "done", b""
                return False
            self._state = "headers"
            return True
        if self._state == "headers":
            return self._headers()
        if self._state == "body":
            return self._body()
        self._buffer = b""  # epilogue after the closing delimiter is ignored
        return False

    def _headers(self) -> bool:
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self._buffer) > MAX_PART_HEADER_BYTES:
                raise RpcError("BAD_REQUEST", "A multipart part has headers longer than 16 KiB")
            return False
        message = Message()
        for line in self._buffer[:end].decode("latin-1").split("\r\n"):
            name, sep, value = line.partition(":")
            if sep:
                message[name.strip()] = value.strip()
        self._buffer = self._buffer[end + 4 :]
        self._part = _Part(message, self._spool)
        self._state = "body"
        return True

    def _body(self) -> bool:
        assert self._part is not None
        at = self._buffer.find(self._delimiter)
        if at < 0:
            keep = len(self._delimiter) - 1  # a delimiter may be split across chunks
            if len(self._buffer) > keep:
                self._part.write(self._buffer[:-keep])
                self._buffer = self._buffer[-keep:]
            return False
        self._part.write(self._buffer[:at])
        self._part.finish(self._fields)
        self._part = None
        self._buffer = self._buffer[at + len(self._delimiter) :]
        self._state = "after_delimiter"
        return True

    def close(self) -> dict[str, Any]:
        if self._state != "done":
            raise RpcError("BAD_REQUEST", "The multipart body could not be read: it ends before its closing boundary")
        return self._fields


class _Part:
    def __init__(self, headers: Message, spool: SpoolContext):
        self.name = headers.get_param("name", header="content-disposition")
        filename = headers.get_param("filename", header="content-disposition")
        self.filename = filename if isinstance(filename, str) else None
        self.content_type = headers.get_content_type()
        self._writer = spool.writer() if self.filename is not None and isinstance(self.name, str) else None
        self._value = bytearray()

    def write(self, data: bytes) -> None:
        if not isinstance(self.name, str) or not self.name:
            return  # not an input field: its content is skipped, never kept
        if self._writer is not None:
            self._writer.write(data)
            return
        self._value += data
        if len(self._value) > MAX_FIELD_BYTES:
            raise RpcError("BAD_REQUEST", f"A multipart form field is longer than {MAX_FIELD_BYTES} bytes")

    def finish(self, fields: dict[str, Any]) -> None:
        if not isinstance(self.name, str) or not self.name:
            return  # a part without a plain form-field name is not an input field
        if self._writer is not None:
            fields[self.name] = self._writer.finish(self.filename or "upload.bin", self.content_type)
        else:
            fields[self.name] = bytes(self._value).decode("utf-8", errors="replace")


# --- JSON bodies: {"filename": ..., "contentBase64": "..."} ------------------------------------------------

_JSON_READ = 1024 * 1024
_JSON_TOKENS = re.compile(rb'["\\{}\[\]:,]')
_BASE64_KEY = b"contentBase64"
MAX_JSON_FIELDS_BYTES = 1024 * 1024  # the input besides the file (filename, profile): small by nature


async def spool_json_upload(chunks: AsyncIterator[bytes], spool: SpoolContext, inline_max: int) -> Any:
    """The JSON body of an upload procedure, spooled to disk as it arrives.

    A body up to `inline_max` bytes comes back as bytes, parsed as usual by the caller. A bigger
    one must carry the file as the top-level "contentBase64" string: it is decoded chunk by chunk
    into a spool file, and the rest of the object (capped at 1 MiB) is parsed, with the file
    under "file" as a multipart upload would give it. Memory stays within a few read chunks.
    """
    body = spool.writer()
    async for chunk in chunks:
        body.write(chunk)
    spooled_body = body.finish("body.json", "application/json")
    if spooled_body.size <= inline_max:
        return spooled_body.read_bytes()
    span = _top_level_string(spooled_body.path, _BASE64_KEY)
    if span is None:
        raise RpcError(
            "BAD_REQUEST",
            f"A JSON upload above {inline_max} bytes carries the file in 'contentBase64' (or send it as multipart)",
        )
    start, end = span
    if start - 1 > MAX_JSON_FIELDS_BYTES:
        raise RpcError("BAD_REQUEST", f"The fields besides 'contentBase64' exceed {MAX_JSON_FIELDS_BYTES} bytes")
    with spooled_body.path.open("rb") as fh:
        head = fh.read(start - 1)
        fh.seek(end + 1)
        tail = fh.read(MAX_JSON_FIELDS_BYTES + 1)
    rest = head + b"null" + tail
    if len(rest) > MAX_JSON_FIELDS_BYTES:
        raise RpcError("BAD_REQUEST", f"The fields besides 'contentBase64' exceed {MAX_JSON_FIELDS_BYTES} bytes")
    try:
        fields = orjson.loads(rest)
    except orjson.JSONDecodeError as exc:
        raise RpcError("PARSE_ERROR", f"The input is not valid JSON: {exc.msg}") from None
    if not isinstance(fields, dict):
        raise RpcError("BAD_REQUEST", "The input must be an object")
    name = fields.get("filename")
    fields.pop(_BASE64_KEY.decode(), None)
    fields["file"] = _decode_base64_span(spooled_body.path, start, end, spool, name if isinstance(name, str) else "")
    return fields


def _top_level_string(path: Path, key: bytes) -> tuple[int, int] | None:
    """(start, end) byte offsets of the string value of `key` in the top-level object, quotes excluded.

    A small tokenizer over the file in chunks: only quotes, backslashes and structure are looked at, so
    a long base64 string is skipped at `re` speed and never held whole.
    """
    finder = _KeyFinder(path, key)
    offset = 0
    with path.open("rb") as fh:
        while chunk := fh.read(_JSON_READ):
            for m in _JSON_TOKENS.finditer(chunk):
                found = finder.token(m.group(), offset + m.start())
                if found is not None:
                    return found
            offset += len(chunk)
    return None


class _KeyFinder:
    def __init__(self, path: Path, key: bytes):
        self.path, self.key = path, key
        self.depth, self.in_string, self.skip_at, self.string_start = 0, False, -1, 0
        self.last_string: tuple[int, int] | None = None
        self.want_value = False

    def token(self, token: bytes, pos: int) -> tuple[int, int] | None:
        if pos == self.skip_at:
            return None
        if self.in_string:
            return self._in_string(token, pos)
        if token == b'"':
            self.in_string, self.string_start = True, pos + 1
            return None
        if token == b":" and self.depth == 1 and self.last_string is not None:
            self.want_value = _read_at(self.path, self.last_string) == self.key
        else:
            self.want_value = False
            self.depth += 1 if token in (b"{", b"[") else -1 if token in (b"}", b"]") else 0
        self.last_string = None
        return None

    def _in_string(self, token: bytes, pos: int) -> tuple[int, int] | None:
        if token == b"\\":
            self.skip_at = pos + 1
            return None
        if token == b'"':
            self.in_string = False
            if self.depth == 1 and self.want_value:
                return self.string_start, pos
            self.last_string = (self.string_start, pos) if self.depth == 1 else None
        return None


def _read_at(path: Path, span: tuple[int, int]) -> bytes | None:
    start, end = span
    if end - start > 64:
        return None  # not a key we look for
    with path.open("rb") as fh:
        fh.seek(start)
        return fh.read(end - start)


def _decode_base64_span(path: Path, start: int, end: int, spool: SpoolContext, filename: str) -> UploadedFile:
    """Decode the base64 text at [start, end) of `path` into a spool file, a chunk (a multiple of 4) at a time."""
    writer = spool.writer()
    carry = b""
    invalid = RpcError("BAD_REQUEST", "Invalid input: 'contentBase64' is not valid base64")
    with path.open("rb") as fh:
        fh.seek(start)
        left = end - start
        while left > 0:
            chunk = carry + fh.read(min(_JSON_READ, left))
            left = end - start - (fh.tell() - start)
            if chunk.endswith(b"\\") and left > 0:
                chunk, carry = chunk[:-1], b"\\"  # an escape split across reads: finish it with the next one
            else:
                carry = b""
            text = chunk.replace(b"\\/", b"/")  # JSON may escape '/'; any other escape is not base64
            usable = len(text) - len(text) % 4 if left > 0 else len(text)
            if left > 0 and b"=" in text:
                raise invalid  # padding only at the very end
            try:
                writer.write(base64.b64decode(text[:usable], validate=True))
            except (binascii.Error, ValueError):
                raise invalid from None
            carry = text[usable:] + carry
    if carry:
        raise invalid
    return writer.finish(filename or "upload.bin", "application/octet-stream")
