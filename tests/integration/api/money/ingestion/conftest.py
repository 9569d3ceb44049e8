"""Helpers for ingestion integration tests: uploads over the real wire, fixture files."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import pytest

from tests.support.paths import X12_FIXTURES
from tests.support.rpc_client import RpcResult, collect_pages

X12_DIR = X12_FIXTURES


def x12_bytes(name: str) -> bytes:
    return (X12_DIR / name).read_bytes()


def upload_json(rpc, data: bytes, filename: str, procedure: str = "ingestion.uploadUniversal", **extra):
    body = {"filename": filename, "contentBase64": base64.b64encode(data).decode(), **extra}
    return rpc.mutation(procedure, body)


def upload_multipart(rpc, data: bytes, filename: str, procedure: str = "ingestion.uploadUniversal", **fields):
    r = rpc.http.post(
        f"/api/rpc/{procedure}",
        headers=rpc.headers(),
        files={"file": (filename, data, "application/octet-stream")},
        data=fields,
    )
    return RpcResult(r.status_code, r.json())


def expect_ok(result: RpcResult) -> Any:
    """The answer of a call the test needs to succeed; fails the test with the error otherwise."""
    return result.data


def all_pages(rpc, path: str, input: dict) -> list[dict]:
    return collect_pages(rpc, path, input)


def money_sum(entries, **where) -> Decimal:
    return sum((Decimal(e["amount"]) for e in entries if all(e[k] == v for k, v in where.items())), Decimal("0.00"))


@pytest.fixture
def member(make_member):
    return make_member(role="admin")
