"""Access log without query strings.

uvicorn's own access log prints the full URL, and tRPC queries carry their
input in `?input=` — a patient name or member id would land in the log. This
middleware logs method, path, status and duration only; `serve` switches
uvicorn's access log off.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("api.access")


class AccessLogMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            log.info(
                "%s %s %s %.1fms",
                scope["method"],
                scope["path"],
                status["code"],
                (time.perf_counter() - started) * 1000,
            )
