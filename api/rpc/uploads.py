"""File inputs for upload procedures (tRPC v11 FormData and octet-stream inputs).

An upload procedure (declared `accepts_files=True`) receives a dict: for
multipart bodies the form fields, with each file as an `UploadedFile`; for an
`application/octet-stream` body `{"file": UploadedFile}` with the name taken
from the `X-Filename` header or the `filename` query parameter. JSON callers
may instead send the content base64-encoded in the input object.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from starlette.requests import Request

from api.rpc.errors import RpcError


@dataclass(frozen=True)
class UploadedFile:
    filename: str
    content_type: str
    data: bytes


async def parse_file_body(request: Request, body: bytes, content_type: str) -> dict[str, Any]:
    if content_type == "application/octet-stream":
        name = request.headers.get("x-filename") or request.query_params.get("filename") or "upload.bin"
        return {"file": UploadedFile(filename=name, content_type=content_type, data=body)}
    return parse_multipart(request.headers.get("content-type", ""), body)


def parse_multipart(content_type_header: str, body: bytes) -> dict[str, Any]:
    """Parse multipart/form-data with the standard library (the body is already size-checked)."""
    if "boundary=" not in content_type_header:
        raise RpcError("BAD_REQUEST", "The multipart body has no boundary")
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type_header.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise RpcError("BAD_REQUEST", "The multipart body could not be read")
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            continue  # a part without a plain form-field name is not an input field
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            payload = b""  # decode=True yields bytes for leaf parts; a nested multipart carries no field
        filename = part.get_filename()
        if filename is not None:
            fields[name] = UploadedFile(filename=filename, content_type=part.get_content_type(), data=payload)
        else:
            fields[name] = payload.decode("utf-8", errors="replace")
    return fields
