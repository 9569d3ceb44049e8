"""Helpers for evidence tests: cases and claims in a tenant, attaching files over the real wire."""

from __future__ import annotations

import base64
import uuid
from decimal import Decimal
from typing import Any

from api.denials.claims.models import Claim
from api.infra.db.base import utcnow
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import RpcResult

__all__ = ["attach_json", "attach_multipart", "make_case", "make_claim"]


def make_claim(services: Any, organization_id: int, client_id: int, claim_key: str, **values: Any) -> int:
    with services.database.transaction() as db:
        claim = Claim(
            organization_id=organization_id,
            client_id=client_id,
            claim_key=claim_key,
            payer="NORTHWIND HEALTH PLAN",
            total_charge=Decimal("1250.00"),
            origin="manual",
            state="submitted",
            state_changed_at=utcnow(),
            **values,
        )
        db.add(claim)
        db.flush()
        return claim.id


def attach_multipart(
    rpc, data: bytes, filename: str, content_type: str = "application/octet-stream", **fields
) -> RpcResult:
    form = {k: str(v) for k, v in fields.items()}
    r = rpc.http.post(
        "/api/rpc/evidenceControl.attach",
        headers=rpc.headers(),
        files={"file": (filename, data, content_type)},
        data=form,
    )
    return RpcResult(r.status_code, r.json())


def attach_json(rpc, data: bytes, filename: str, **fields) -> RpcResult:
    body = {"filename": filename, "contentBase64": base64.b64encode(data).decode(), **fields}
    return rpc.mutation("evidenceControl.attach", body)


def new_key() -> str:
    return f"PCN-{uuid.uuid4().hex[:10]}"
