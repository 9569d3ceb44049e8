"""Helpers for denial-case tests: hand-written 835s uploaded and confirmed over the real wire."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.api.money.ingestion.conftest import upload_json
from tests.support.paths import X12_FIXTURES
from tests.support.rpc_client import collect_pages
from tests.support.tenancy import join

HAND = X12_FIXTURES / "hand"


def upload(rpc, name: str) -> dict[str, Any]:
    """The import batch of a hand-written 835 (tests/fixtures/x12/hand)."""
    return upload_json(rpc, (HAND / name).read_bytes(), name, "ingestion.uploadEra").data["batch"]


def confirm(rpc, batch_id: int):
    return rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch_id})


def post(rpc, name: str) -> dict[str, Any]:
    """Upload and confirm a hand-written 835; the confirm's answer."""
    return confirm(rpc, upload(rpc, name)["id"]).data


def cases(rpc, **filters) -> list[dict[str, Any]]:
    return collect_pages(rpc, "cases.list", filters)


def by_claim(rpc) -> dict[str, dict[str, Any]]:
    found = cases(rpc)
    out = {c["claimKey"]: c for c in found}
    assert len(out) == len(found), "one case per claim expected here"
    return out


def open_case(rpc, claim_key: str = "MAN-1", amount: str = "100.00", **extra) -> dict[str, Any]:
    body = {"claimKey": claim_key, "payer": "HAND MANUAL PAYER", "amountAtStake": amount, "carc": "50", **extra}
    return rpc.mutation("cases.open", body).data["case"]


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def join_as(member, services, role: str) -> tuple[int, Any]:
    """A new user who joins `member`'s organization with `role`: (user id, their rpc on the member's client)."""
    user_id, _email, _password, token = join(services, member.rpc, member.organization_id, role)
    return user_id, member.rpc.as_(token, member.client_id)
