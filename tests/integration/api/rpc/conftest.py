"""A probe router for wire tests: the real `RpcEndpoint` over a private registry.

Some wire behaviour (every error code, an unexpected exception, a small
per-procedure body limit, an upload procedure) needs procedures the product
does not have. They are declared on a `Registry` of their own, never on the
global `api.rpc.procedure.rpc`, so the product's contract is untouched; the
endpoint, executor and services are the real ones.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pydantic import Field
from starlette.applications import Starlette
from starlette.routing import Route

from api.rpc.context import PublicContext
from api.rpc.errors import RpcError
from api.rpc.http import RpcEndpoint
from api.rpc.procedure import Registry
from api.rpc.schema import Output, Schema
from api.rpc.uploads import UploadedFile

PROBE_BODY_LIMIT = 256
# Looks like PHI and like a code location: neither may reach a response body.
SECRET_DETAIL = "patient Jane Q Public DOB 1961-02-03 at /srv/app/api/secret.py line 12"


class RaiseIn(Schema):
    code: str = Field(description="A key of api.rpc.errors.ERROR_CODES")


class EchoIn(Schema):
    text: str
    count: int = 1


class EchoOut(Output):
    text: str
    count: int


class UploadIn(Schema):
    file: UploadedFile


class FileOut(Output):
    filename: str
    size: int


def build_probe_registry() -> Registry:
    probe = Registry()

    @probe.query("probe.raise", auth="public")
    def raise_code(ctx: PublicContext, input: RaiseIn) -> EchoOut:
        """Fails with the requested tRPC error code."""
        raise RpcError(input.code, f"probe failure {input.code}")

    @probe.query("probe.raiseAsync", auth="public")
    async def raise_code_async(ctx: PublicContext, input: RaiseIn) -> EchoOut:
        """Fails with the requested tRPC error code on the async fast path."""
        raise RpcError(input.code, f"probe failure {input.code}")

    @probe.query("probe.crash", auth="public")
    def crash(ctx: PublicContext) -> EchoOut:
        """Fails with an unexpected exception whose message must never leave the server."""
        raise ValueError(SECRET_DETAIL)

    @probe.query("probe.crashAsync", auth="public")
    async def crash_async(ctx: PublicContext) -> EchoOut:
        """Fails unexpectedly on the async fast path."""
        raise KeyError(SECRET_DETAIL)

    @probe.query("probe.badOutput", auth="public")
    def bad_output(ctx: PublicContext) -> EchoOut:
        """Returns something that breaks its own output contract."""
        return {"text": SECRET_DETAIL}  # type: ignore[return-value] - missing `count` on purpose

    @probe.query("probe.echo", auth="public")
    def echo(ctx: PublicContext, input: EchoIn) -> EchoOut:
        """Returns its input."""
        return EchoOut(text=input.text, count=input.count)

    @probe.mutation("probe.small", auth="public", max_body_bytes=PROBE_BODY_LIMIT)
    def small(ctx: PublicContext, input: EchoIn) -> EchoOut:
        """A mutation with a body limit of its own."""
        return EchoOut(text=input.text, count=input.count)

    @probe.mutation("probe.upload", auth="public", accepts_files=True, max_body_bytes=4096)
    def upload(ctx: PublicContext, input: UploadIn) -> FileOut:
        """Takes a file."""
        return FileOut(filename=input.file.filename, size=len(input.file.read_bytes()))

    return probe


@pytest.fixture(scope="session")
def probe_http(services) -> Iterator[TestClient]:
    endpoint = RpcEndpoint(build_probe_registry(), services)
    app = Starlette(
        routes=[Route("/api/rpc/{path:path}", endpoint.handle, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])]
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client
