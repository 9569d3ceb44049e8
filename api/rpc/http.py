"""The tRPC v11 wire protocol over HTTP (no transformer).

GET  /api/rpc/a.b?input=<json>                       query
POST /api/rpc/a.b            body <json>              mutation
GET|POST /api/rpc/a.b,c.d?batch=1  input {"0":..,"1":..}  batch, answer in call order

Request-level failures (unparseable JSON, body too large, a batch refused as a
whole, a caller over its rate limit) fail every call: one envelope for a single
call, an array with one envelope per call for a batch, as tRPC v11 answers them.

Rate limit: each request is charged to its caller's budget (`Services.rate_limiter`,
api/infra/rate_limit: the credential presented, else the client address) one unit
per call, after the cheap whole-request refusals (method, batch shape) and before
the body is read or anyone is authenticated. Over budget is TOO_MANY_REQUESTS (429)
with Retry-After. Only /api/rpc is limited: health, JWKS and the console's files are
other routes.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import orjson
from starlette.requests import Request
from starlette.responses import Response

from api.core.errors import RateLimited
from api.infra.services.container import Services
from api.rpc.errors import RpcError, error_envelope, storage_full, to_rpc_error
from api.rpc.executor import UNDEFINED, CallMeta, Envelope, execute, execute_async, run_public_async_ready
from api.rpc.procedure import Procedure, Registry
from api.rpc.uploads import SpoolContext, spool_json_upload, spool_multipart, spool_octet_stream, too_large

JSON = "application/json"

log = logging.getLogger("api.rpc.http")


def _json_response(payload: Any, status: int) -> Response:
    return Response(orjson.dumps(payload), status_code=status, media_type=JSON)


def _request_error(err: RpcError, paths: list[str], is_batch: bool) -> Response:
    if is_batch:
        return _json_response([error_envelope(err, p) for p in paths], err.http_status)
    return _json_response(error_envelope(err, paths[0]), err.http_status)


def _with_retry_after(response: Response, envelopes: list[Envelope]) -> Response:
    """Retry-After (seconds) on a throttled answer: the longest wait any of its calls was given."""
    waits = [
        e["error"]["data"]["retryAfter"]
        for e in envelopes
        if "error" in e and isinstance(e["error"].get("data"), dict) and "retryAfter" in e["error"]["data"]
    ]
    if waits:
        response.headers["Retry-After"] = str(max(waits))
    return response


def _batch_refusal(paths: list[str], procs: list[Procedure | None], max_calls: int) -> RpcError | None:
    """Why a batch is refused as a whole, before any call runs: too many calls, or a call that must
    travel alone (a password check: one guess per HTTP request). A batch of one is a single call
    (tRPC's httpBatchLink sends every call that way)."""
    if len(paths) > max_calls:
        return RpcError("BAD_REQUEST", f"A batch may carry at most {max_calls} calls; this one has {len(paths)}")
    alone = sorted({p.name for p in procs if p is not None and not p.batch})
    if alone and len(paths) > 1:
        return RpcError("BAD_REQUEST", f"{', '.join(alone)} cannot be batched; send it as a single call")
    return None


def _canonical_input(proc: Procedure | None, raw: Any) -> bytes:
    """The input in one spelling, as the procedure reads it: object keys sorted; "no input" (absent,
    null or {} for a procedure without input, absent or {} for one with input) is one value."""
    takes_input = proc is not None and proc.input_model is not None
    if raw is UNDEFINED:
        raw = {} if takes_input else None
    if not takes_input and raw == {}:
        raw = None
    # Parsed JSON only (files never travel in a batch), so it always encodes.
    return orjson.dumps(raw, option=orjson.OPT_SORT_KEYS)


def _repeated_call(paths: list[str], procs: list[Procedure | None], inputs: list[Any]) -> RpcError | None:
    """A batch may not carry the same call twice (same procedure, same input): it would only multiply
    the work of one request (20 x `system.contract`). tRPC clients batch the same procedure with
    different inputs, which is allowed. Call numbers are the batch's input keys; the input is never
    echoed."""
    first_index: dict[tuple[str, bytes], int] = {}
    for index, (path, proc, raw) in enumerate(zip(paths, procs, inputs, strict=True)):
        first = first_index.setdefault((path, _canonical_input(proc, raw)), index)
        if first != index:
            return RpcError(
                "BAD_REQUEST", f"Call {index} repeats call {first} ({path} with the same input); send it once"
            )
    return None


def over_budget(services: Services, request: Request, calls: int) -> RateLimited | None:
    """Charge `calls` to the request's caller (`caller_key`); the refusal when its budget is spent (nothing
    is charged then), else None. Every entry point that serves callers charges through this."""
    limiter = services.rate_limiter
    if limiter is None:
        return None
    decision = limiter.charge(limiter.key_of(*caller_key(request)), calls)
    return None if decision.allowed else limiter.refusal(decision, calls)


def caller_key(request: Request) -> tuple[str, str]:
    """Who is charged for a request: the credential it presents (the token after the scheme, so
    "Bearer x" and "bearer  x" are one caller), else its client address (as uvicorn reports it)."""
    authorization = (request.headers.get("authorization") or "").strip()
    if authorization:
        return "credential", authorization.partition(" ")[2].strip() or authorization
    return "address", request.client.host if request.client else "unknown"


def batch_status(statuses: list[int]) -> int:
    distinct = set(statuses)
    return distinct.pop() if len(distinct) == 1 else 207


class RpcEndpoint:
    def __init__(self, registry: Registry, services: Services) -> None:
        self.registry = registry
        self.services = services

    async def handle(self, request: Request) -> Response:
        raw_path = request.path_params["path"]
        is_batch = request.query_params.get("batch") in ("1", "true")
        paths = raw_path.split(",") if is_batch else [raw_path]
        procs = [self.registry.procedures.get(p) for p in paths]
        method = request.method
        if method not in ("GET", "POST"):
            err = RpcError("METHOD_NOT_SUPPORTED", f"Unsupported {method} request: queries use GET, mutations POST")
            response = _request_error(err, paths, is_batch)
            response.headers["Allow"] = "GET, POST"
            return response
        if is_batch:
            refusal = _batch_refusal(paths, procs, self.services.settings.rpc_max_batch_calls)
            if refusal is not None:
                return _request_error(refusal, paths, is_batch)
        throttled = self._over_budget(request, len(paths))
        if throttled is not None:
            response = _request_error(throttled, paths, is_batch)
            response.headers["Retry-After"] = str(throttled.retry_after)
            return response
        spool = SpoolContext(
            self.services.settings.landing_dir / ".spool", self._body_limit(procs[0] if not is_batch else None)
        )
        try:
            return await self._handle(request, paths, procs, is_batch, spool)
        finally:
            spool.cleanup()  # spooled upload bytes are either linked into the landing zone by now or unwanted

    def _over_budget(self, request: Request, calls: int) -> RpcError | None:
        """The refusal of a request whose caller has spent its budget (each call counts), else None."""
        refused = over_budget(self.services, request, calls)
        return None if refused is None else to_rpc_error(refused)

    async def _handle(
        self, request: Request, paths: list[str], procs: list[Procedure | None], is_batch: bool, spool: SpoolContext
    ) -> Response:
        method = request.method
        try:
            inputs = await self._read_inputs(request, paths, procs, is_batch, spool)
        except RpcError as err:
            return _request_error(err, paths, is_batch)
        except OSError as exc:  # spooling an upload onto a full disk; the spool is removed by the caller
            full = storage_full(exc)
            if full is None:
                raise
            log.warning("rpc %s: storage full while spooling the request (%s)", ",".join(paths), type(exc).__name__)
            response = _request_error(full, paths, is_batch)
            response.headers["Retry-After"] = str(full.retry_after)
            return response
        repeated = _repeated_call(paths, procs, inputs) if is_batch else None
        if repeated is not None:
            return _request_error(repeated, paths, is_batch)  # before any call runs (or authenticates)

        meta = CallMeta(
            authorization=request.headers.get("authorization"),
            client_id_header=request.headers.get("x-client-id"),
            client_ip=request.client.host if request.client else None,
        )
        results: list[tuple[Envelope, int]] = []
        for path, proc, raw in zip(paths, procs, inputs, strict=True):
            results.append(await self._call(path, proc, method, raw, meta))
        envelopes = [r[0] for r in results]
        if not is_batch:
            envelope, status = results[0]
            response = _json_response(envelope, status)
            if status == 405 and procs[0] is not None:
                response.headers["Allow"] = "GET" if procs[0].kind == "query" else "POST"
            return _with_retry_after(response, envelopes)
        return _with_retry_after(_json_response(envelopes, batch_status([r[1] for r in results])), envelopes)

    async def _call(
        self, path: str, proc: Procedure | None, method: str, raw: Any, meta: CallMeta
    ) -> tuple[Envelope, int]:
        if proc is None:
            err = RpcError("NOT_FOUND", f'No procedure found on path "{path}"')
            return error_envelope(err, path), err.http_status
        expected = "GET" if proc.kind == "query" else "POST"
        if method != expected:
            err = RpcError(
                "METHOD_NOT_SUPPORTED",
                f'Unsupported {method}-request to {proc.kind} procedure at path "{path}"',
            )
            return error_envelope(err, path), err.http_status
        if run_public_async_ready(proc):
            return await execute_async(self.services, proc, raw, meta)
        return await anyio.to_thread.run_sync(execute, self.services, proc, raw, meta)

    async def _read_inputs(
        self, request: Request, paths: list[str], procs: list[Procedure | None], is_batch: bool, spool: SpoolContext
    ) -> list[Any]:
        """One raw input per call: from `?input=` (GET) or the body (POST), split by index for a batch."""
        if request.method == "GET":
            text = request.query_params.get("input")
            parsed = UNDEFINED if text is None else _parse_json(text.encode())
            return [parsed] if not is_batch else _split_batch(parsed, len(paths))
        proc = procs[0] if not is_batch else None
        limit = self._body_limit(proc)
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise too_large(limit)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type in ("multipart/form-data", "application/octet-stream"):
            if proc is None or not proc.accepts_files:
                raise RpcError("UNSUPPORTED_MEDIA_TYPE", "Only upload procedures take files; send JSON")
            return [await _spool_files(request, content_type, spool)]
        body = await self._read_json(request, proc, limit, spool)
        if not isinstance(body, bytes):
            return [body]  # a big JSON upload, its file already decoded to a spool file
        parsed = UNDEFINED if not body.strip() else _parse_json(body)
        return [parsed] if not is_batch else _split_batch(parsed, len(paths))

    async def _read_json(self, request: Request, proc: Procedure | None, limit: int, spool: SpoolContext) -> Any:
        """The JSON body as bytes; for an upload procedure spooled to disk first, and when it is big,
        the input object with the base64 content already decoded (in chunks) to a spool file."""
        if proc is None or not proc.accepts_files:
            return await _read_limited(request, limit)
        return await spool_json_upload(
            request.stream(), spool, self.services.settings.upload_parse_in_request_max_bytes
        )

    def _body_limit(self, proc: Procedure | None) -> int:
        settings = self.services.settings
        if proc is None:
            return settings.rpc_max_body_bytes
        if proc.max_body_setting:
            return int(getattr(settings, proc.max_body_setting))
        if proc.max_body_bytes:
            return proc.max_body_bytes
        # Upload procedures share one configurable cap (UPLOAD_MAX_BYTES), ordinary ones RPC_MAX_BODY_BYTES.
        return settings.upload_max_bytes if proc.accepts_files else settings.rpc_max_body_bytes


async def _spool_files(request: Request, content_type: str, spool: SpoolContext) -> dict[str, Any]:
    """Streamed to spool files as it arrives: an upload never sits whole in memory."""
    if content_type == "application/octet-stream":
        name = request.headers.get("x-filename") or request.query_params.get("filename") or "upload.bin"
        return await spool_octet_stream(request.stream(), name, spool)
    return await spool_multipart(request.stream(), request.headers.get("content-type", ""), spool)


def _split_batch(parsed: Any, calls: int) -> list[Any]:
    """A batch input is an object keyed by call index; a missing key is "no input" for that call."""
    if parsed is UNDEFINED:
        return [UNDEFINED] * calls
    if not isinstance(parsed, dict):
        raise RpcError("BAD_REQUEST", 'A batch input must be an object keyed by call index: {"0": ..., "1": ...}')
    return [parsed.get(str(i), UNDEFINED) for i in range(calls)]


def _parse_json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise RpcError("PARSE_ERROR", f"The input is not valid JSON: {exc.msg} at position {exc.pos}") from None


async def _read_limited(request: Request, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)
