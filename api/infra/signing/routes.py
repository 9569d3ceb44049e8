"""`GET /.well-known/jwks.json`: the public half of the SMART signing keys."""

from __future__ import annotations

import logging
from typing import Protocol

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.infra.signing.service import SigningKeys, SigningKeysUnavailable

log = logging.getLogger("api.infra.signing")
CACHE_CONTROL = "public, max-age=300"


class KeyHolder(Protocol):
    """What the endpoint needs of the services (the services container imports this package, so it
    is named by shape here, not imported)."""

    @property
    def signing_keys(self) -> SigningKeys | None: ...


def install(app: FastAPI, services: KeyHolder) -> None:
    """Mount the JWKS endpoint on `app`."""

    @app.get("/.well-known/jwks.json", include_in_schema=False)
    def jwks(request: Request) -> Response:
        keys = services.signing_keys
        if keys is None:
            return _unavailable("signing keys are not configured on this server")
        try:
            published = keys.published()
        except SigningKeysUnavailable as exc:
            # The reason names files on this server: it goes to the operator's log, not to the public.
            log.error("JWKS unavailable: %s", exc)
            return _unavailable("the signing keys cannot be read on this server; the operator's log says why")
        headers = {"Cache-Control": CACHE_CONTROL, "ETag": published.etag}
        if request.headers.get("if-none-match") == published.etag:
            return Response(status_code=304, headers=headers)
        return Response(published.body, media_type="application/jwk-set+json", headers=headers)


def _unavailable(message: str) -> JSONResponse:
    return JSONResponse(
        {"error": "signing_keys_unavailable", "message": message},
        status_code=503,
        headers={"Cache-Control": "no-store"},
    )
