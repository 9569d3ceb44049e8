"""A small tRPC wire client for tests (speaks the same protocol as @trpc/client)."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class RpcResult:
    status: int
    body: Any

    @property
    def data(self) -> Any:
        assert "result" in self.body, f"expected success, got {self.status}: {self.body}"
        return self.body["result"]["data"]

    @property
    def error(self) -> dict:
        assert "error" in self.body, f"expected an error, got {self.status}: {self.body}"
        return self.body["error"]

    @property
    def code(self) -> str | None:
        return self.body.get("error", {}).get("data", {}).get("code") if isinstance(self.body, dict) else None


class Rpc:
    """Calls procedures on a FastAPI TestClient or an httpx.Client with a base URL."""

    def __init__(self, http: httpx.Client, token: str | None = None, client_id: int | None = None):
        self.http = http
        self.token = token
        self.client_id = client_id

    def as_(self, token: str | None, client_id: int | None = None) -> Rpc:
        return Rpc(self.http, token, client_id)

    def headers(self) -> dict[str, str]:
        h: dict[str, str] = {}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if self.client_id is not None:
            h["X-Client-Id"] = str(self.client_id)
        return h

    def query(self, path: str, input: Any = None) -> RpcResult:
        url = f"/api/rpc/{path}"
        if input is not None:
            url += "?input=" + urllib.parse.quote(json.dumps(input))
        r = self.http.get(url, headers=self.headers())
        return RpcResult(r.status_code, r.json())

    def mutation(self, path: str, input: Any = None) -> RpcResult:
        kwargs: dict[str, Any] = {"headers": self.headers()}
        if input is not None:
            kwargs["json"] = input
        r = self.http.post(f"/api/rpc/{path}", **kwargs)
        return RpcResult(r.status_code, r.json())

    def call(self, kind: str, path: str, input: Any = None) -> RpcResult:
        return self.query(path, input) if kind == "query" else self.mutation(path, input)


def collect_pages(rpc: Rpc, path: str, input: dict, *, limit: int = 500, on_page=None) -> list[dict]:
    """Every item of a paginated query, following nextCursor; `on_page(page)` sees each page."""
    items, cursor = [], None
    while True:
        page = rpc.query(path, {**input, "limit": limit, **({"cursor": cursor} if cursor else {})}).data
        if on_page is not None:
            on_page(page)
        items.extend(page["items"])
        cursor = page["nextCursor"]
        if not cursor:
            return items
