"""Pure functions the capped-child tests run in a child process (they must be importable by name)."""

from __future__ import annotations

import os
from typing import Any

from api.core.errors import InvalidInput


def echo(payload: bytes, **params: Any) -> dict[str, Any]:
    return {"size": len(payload), "head": payload[:5].decode(), "params": params}


def refuse(payload: bytes, *, limit: int) -> None:
    raise InvalidInput(f"this file has {len(payload)} parts; the limit is {limit}")


def hog_memory(payload: bytes) -> int:
    # 4 GiB, far over the cap. bytes(n) is calloc'd, so it reserves address space (what RLIMIT_AS counts) without
    # touching pages; bytearray(n) memsets every page, which on a loaded machine cost more than the tests' 1 s of
    # CPU and turned the expected "memory" refusal into a "time" one.
    hoard = [bytes(64 * 1_048_576) for _ in range(64)]
    return len(hoard)


def spin(payload: bytes) -> int:
    n = 0
    while True:
        n += 1


def boom(payload: bytes) -> None:
    raise KeyError("a private value the parent must never see")


def die(payload: bytes) -> None:
    os._exit(9)
