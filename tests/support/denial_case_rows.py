"""Denial cases made directly through the ORM for tests of the namespaces that work on cases, and a
second member in an existing organization."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from api.denials.cases.models import DenialCase
from api.infra.db.base import utcnow
from tests.support.rpc_client import Rpc


def make_case(services: Any, organization_id: int, client_id: int, **values: Any) -> int:
    """A manual denial case in the tenant; returns its id. `values` override the defaults."""
    fields: dict[str, Any] = {
        "denial_key": uuid.uuid4().hex,
        "origin": "manual",
        "event_kind": "denial",
        "claim_key": f"PCN-{uuid.uuid4().hex[:10]}",
        "payer": "NORTHWIND HEALTH PLAN",
        "amount_at_stake": Decimal("1250.00"),
        "state": "open",
        "state_changed_at": utcnow(),
        **values,
    }
    with services.database.transaction() as db:
        case = DenialCase(organization_id=organization_id, client_id=client_id, **fields)
        db.add(case)
        db.flush()
        return case.id


@dataclass
class Colleague:
    user_id: int
    rpc: Rpc


def add_colleague(services: Any, rpc: Rpc, owner: Any, role: str = "specialist") -> Colleague:
    """A new user invited into `owner`'s organization with `role` (by the platform, so independent of the
    owner for separation of duties), signed in on the owner's client."""
    from tests.support.tenancy import join

    user_id, _email, _password, token = join(services, rpc, owner.organization_id, role)
    return Colleague(user_id, rpc.as_(token, owner.client_id))
