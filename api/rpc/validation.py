"""Input validation with messages that name the field, never the value."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from api.rpc.errors import RpcError
from api.rpc.procedure import Procedure


def validate_input(proc: Procedure, raw: Any, undefined: Any) -> Any:
    model = proc.input_model
    if model is None:
        # A procedure without input accepts nothing, null or {}; anything else is a caller's mistake
        # (say, a field meant for another procedure) and must not be silently ignored.
        if raw is undefined or raw is None or raw == {}:
            return None
        raise RpcError(
            "BAD_REQUEST",
            f"Invalid input: {proc.name} takes no input, got {_json_type(raw)}",
            data={"issues": [{"path": "", "message": "expected no input"}]},
        )
    if raw is undefined:
        raw = {}
    if not isinstance(raw, dict):
        raise RpcError(
            "BAD_REQUEST",
            f"Invalid input: {proc.name} takes a JSON object, got {_json_type(raw)}",
            data={"issues": [{"path": "", "message": "expected an object"}]},
        )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        # Only the input's validation failure is the caller's fault; a ValidationError
        # raised later inside a handler is a server bug and answers INTERNAL_SERVER_ERROR.
        raise validation_error(exc) from None


def validation_error(exc: ValidationError) -> RpcError:
    issues = []
    for e in exc.errors(include_input=False, include_url=False, include_context=False):
        path = ".".join(str(p) for p in e["loc"]) or "(input)"
        issues.append({"path": path, "message": e["msg"]})
    summary = "; ".join(f"'{i['path']}': {i['message']}" for i in issues[:5])
    more = f" (and {len(issues) - 5} more)" if len(issues) > 5 else ""
    return RpcError("BAD_REQUEST", f"Invalid input: {summary}{more}", data={"issues": issues})


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )
