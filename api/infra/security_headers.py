"""Security headers on every HTTP answer.

RPC answers carry PHI: no cache (browser or intermediary) may keep them, browsers must not sniff
their type or frame them. HSTS is sent only when the request arrived over TLS (uvicorn sets the
scheme from the connection, or from X-Forwarded-Proto with `--proxy-headers` behind a proxy):
announcing it over plain HTTP would be ignored by browsers and wrong for local development.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Sent on every answer.
BASE_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
#: Any answer may hold tenant data unless its handler says otherwise (the public JWKS sets its own
#: Cache-Control): nothing is stored by default.
NO_STORE = (b"cache-control", b"no-store")
HSTS = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")


def headers_for(scheme: str, existing: set[bytes]) -> list[tuple[bytes, bytes]]:
    """The headers to add to an answer (pure; `existing` = header names the handler already set)."""
    out = [h for h in BASE_HEADERS if h[0] not in existing]
    if b"cache-control" not in existing:
        out.append(NO_STORE)
    if scheme == "https":
        out.append(HSTS)
    return out


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers.extend(headers_for(scope.get("scheme", "http"), names))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_wrapper)
