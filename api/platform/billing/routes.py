"""`POST /api/webhooks/billing`: signed billing-provider events.

Order of checks: configured? -> size -> signature on the raw bytes -> JSON ->
PHI scan -> event format -> store. Nothing is stored unless every check
passes, and no response echoes a payload value.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, NoReturn, Protocol

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from api.core.settings import Settings
from api.infra.db.session import Database
from api.platform.billing import service
from api.platform.billing.events import EventInvalid, parse_event
from api.platform.billing.phi import find_phi
from api.platform.billing.signature import SignatureError, parse_secrets, verify

log = logging.getLogger("api.platform.billing")
MAX_BODY_BYTES = 256 * 1024
PATH = "/api/webhooks/billing"


class WebhookServices(Protocol):
    """What the webhook uses of the application's services."""

    @property
    def settings(self) -> Settings: ...

    @property
    def database(self) -> Database: ...


class _BodyTooLarge(Exception):
    pass


def _error(status: int, error: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": error, "message": message, **extra}, status_code=status)


async def _read_capped(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def install(app: FastAPI, services: WebhookServices) -> None:
    """Mount the billing webhook on `app`."""
    settings = services.settings

    @app.post(PATH, include_in_schema=False)
    async def billing_webhook(request: Request) -> JSONResponse:
        secrets = parse_secrets(settings.billing_webhook_secret)
        if not secrets:
            return _error(503, "not_configured", "billing webhook is not configured")
        try:
            body = await _read_capped(request, MAX_BODY_BYTES)
        except _BodyTooLarge:
            return _error(413, "payload_too_large", f"The event body exceeds {MAX_BODY_BYTES} bytes")
        try:
            verify(
                request.headers.get("billing-signature"),
                body,
                secrets,
                now=int(time.time()),
                tolerance=settings.billing_webhook_tolerance_seconds,
            )
        except SignatureError as exc:
            log.warning("billing webhook refused: %s", exc.reason)
            return _error(400, exc.reason, str(exc))
        try:
            document = json.loads(body, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError):
            return _error(400, "malformed_json", "The body is not valid UTF-8 JSON")
        findings = find_phi(document)
        if findings:
            log.warning("billing webhook refused: %d PHI-like field(s)", len(findings))
            # Only the offending key names (they matched PHI field names) and a count of
            # SSN-shaped values; other path segments are sender-chosen and could be data.
            keys = sorted({f.key for f in findings if f.key is not None})[:20]
            values = sum(1 for f in findings if f.key is None)
            return _error(
                422,
                "phi_refused",
                "Billing events must not carry patient data; remove the named fields"
                " and any SSN-shaped values, then resend",
                fields=keys,
                ssnLikeValues=values,
            )
        try:
            event = parse_event(document)
        except EventInvalid as exc:
            return _error(400, "invalid_event", str(exc))
        recorded = await run_in_threadpool(service.record_event, services.database, event)
        if recorded.duplicate:
            return JSONResponse({"received": True, "duplicate": True})
        log.info("billing event %s (%s) %s", recorded.event_id, event.type, recorded.status)
        return JSONResponse({"received": True, "duplicate": False, "eventId": recorded.event_id})
