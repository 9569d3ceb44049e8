"""The one field type upload procedures use for a file, from any transport.

`UploadedFileField` (`api/rpc/uploads.py`) accepts the `UploadedFile` the router builds from a
multipart or octet-stream body; JSON callers (e.g. `@trpc/client` with a plain
JSON link) send `filename` + `contentBase64` (or, for CSV, `content` text)
instead. `resolve_upload` turns either into (filename, content type, bytes).
"""

from __future__ import annotations

import base64
import binascii

from pydantic import Field

from api.core.errors import InvalidInput
from api.rpc.schema import Schema
from api.rpc.uploads import UploadedFile, UploadedFileField


class UploadIn(Schema):
    """A file, as a multipart/octet-stream part or as JSON (filename + base64 content)."""

    file: UploadedFileField | None = None
    filename: str | None = Field(default=None, max_length=255, description="Required with contentBase64/content")
    content_base64: str | None = Field(default=None, description="The file's bytes, base64-encoded (JSON callers)")
    profile: str | None = Field(default=None, max_length=80, description="Connector profile name (tabular files)")


class CsvUploadIn(UploadIn):
    content: str | None = Field(default=None, description="The CSV as UTF-8 text (JSON callers, small files)")


def resolve_upload(value: UploadIn) -> tuple[str, str | None, bytes | UploadedFile]:
    """(filename, content type, content) from whichever transport the caller used: the spooled file of a
    multipart/octet-stream body, or the bytes of a JSON one."""
    text = getattr(value, "content", None)
    given = [value.file is not None, value.content_base64 is not None, text is not None]
    if sum(given) != 1:
        raise InvalidInput("Send exactly one of: a file part, 'contentBase64', or 'content'")
    if value.file is not None:
        return value.filename or value.file.filename, value.file.content_type, value.file
    if not value.filename:
        raise InvalidInput("Invalid input: 'filename' is required with 'contentBase64' or 'content'")
    if text is not None:
        return value.filename, "text/csv", text.encode("utf-8")
    try:
        data = base64.b64decode(value.content_base64 or "", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("Invalid input: 'contentBase64' is not valid base64") from None
    return value.filename, None, data
