"""Upload bodies streamed to spool files: multipart split at every possible chunk boundary, and the
JSON base64 body decoded from disk, with escapes and padding across its read windows."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os

import pytest

from api.rpc import uploads
from api.rpc.errors import RpcError
from api.rpc.uploads import SpoolContext, spool_json_upload, spool_multipart

BOUNDARY = "----b0undary"
FILE = b"a,b\r\n1,2\r\n------b0undar not the boundary\r\n" + bytes(range(256)) * 4


def _multipart(file: bytes) -> bytes:
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="profile"\r\n\r\nacme\r\n'
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n'
            "Content-Type: text/csv\r\n\r\n"
        ).encode()
        + file
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


async def _chunks(body: bytes, size: int):
    for start in range(0, len(body), size):
        yield body[start : start + size]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 13, 64, 4096])
def test_multipart_is_read_whatever_the_chunk_boundaries(tmp_path, chunk):
    spool = SpoolContext(tmp_path / "spool", limit=1_000_000)
    fields = asyncio.run(
        spool_multipart(_chunks(_multipart(FILE), chunk), f"multipart/form-data; boundary={BOUNDARY}", spool)
    )

    assert fields["profile"] == "acme"
    upload = fields["file"]
    assert (upload.filename, upload.content_type, upload.size) == ("c.csv", "text/csv", len(FILE))
    assert upload.read_bytes() == FILE
    assert upload.sha256 == hashlib.sha256(FILE).hexdigest()
    assert oct(os.stat(upload.path).st_mode & 0o777) == "0o600"
    spool.cleanup()
    assert list((tmp_path / "spool").iterdir()) == []


def test_a_multipart_body_cut_before_its_closing_boundary_is_refused(tmp_path):
    body = _multipart(FILE)[:-20]
    spool = SpoolContext(tmp_path / "spool", limit=1_000_000)
    with pytest.raises(RpcError, match="ends before its closing boundary"):
        asyncio.run(spool_multipart(_chunks(body, 100), f"multipart/form-data; boundary={BOUNDARY}", spool))


def test_a_multipart_file_over_the_limit_is_refused_while_it_arrives(tmp_path):
    spool = SpoolContext(tmp_path / "spool", limit=500)
    with pytest.raises(RpcError) as refused:
        asyncio.run(spool_multipart(_chunks(_multipart(FILE), 64), f"multipart/form-data; boundary={BOUNDARY}", spool))
    assert refused.value.code == "PAYLOAD_TOO_LARGE"


@pytest.fixture
def small_windows(monkeypatch):
    # A 10-byte read window puts escapes, padding and the key itself across reads in a small body.
    monkeypatch.setattr(uploads, "_JSON_READ", 10)


@pytest.mark.parametrize("payload", [b"", b"x", b"xy", b"xyz", b"\xff\xfe\xfd" * 11, bytes(range(256))])
def test_a_big_json_body_has_its_base64_decoded_from_disk(tmp_path, small_windows, payload):
    encoded = base64.b64encode(payload).replace(b"/", b"\\/")
    body = (
        b'{"profile": "p", "nested": {"contentBase64": "no"}, "contentBase64": "' + encoded + b'", "filename": "f.csv"}'
    )
    spool = SpoolContext(tmp_path / "spool", limit=1_000_000)

    fields = asyncio.run(spool_json_upload(_chunks(body, 7), spool, inline_max=16))

    assert fields["profile"] == "p"
    assert fields["nested"] == {"contentBase64": "no"}
    assert fields["filename"] == "f.csv"
    assert "contentBase64" not in fields
    assert fields["file"].read_bytes() == payload
    assert fields["file"].sha256 == hashlib.sha256(payload).hexdigest()


@pytest.mark.parametrize("text", [b"QUJD!", b"QU=DQUJD", b"QUJ", b"QU\\nJD"])
def test_broken_base64_in_a_big_json_body_is_bad_request(tmp_path, small_windows, text):
    body = b'{"filename": "f.csv", "contentBase64": "' + text + b'"}'
    spool = SpoolContext(tmp_path / "spool", limit=1_000_000)
    with pytest.raises(RpcError, match="'contentBase64' is not valid base64"):
        asyncio.run(spool_json_upload(_chunks(body, 5), spool, inline_max=16))


def test_a_small_json_body_comes_back_as_bytes(tmp_path):
    spool = SpoolContext(tmp_path / "spool", limit=1_000_000)
    body = b'{"filename": "f.csv", "contentBase64": "QUJD"}'
    assert asyncio.run(spool_json_upload(_chunks(body, 5), spool, inline_max=1024)) == body
