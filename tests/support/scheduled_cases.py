"""Denial cases written straight through the ORM in a member's tenant (cases intake is not needed)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from api.denials.cases.models import DenialCase
from api.denials.deadlines.service import schedule_case
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.services.container import Services


def make_case(
    services: Services,
    member,
    *,
    payer_class: str | None = "medicare",
    payer: str = "Medicare Part B",
    remittance_date: date | None = None,
    service_date: date | None = None,
    state: str = "open",
    owner_user_id: int | None = None,
    schedule: bool = True,
    as_of: date | None = None,
) -> int:
    """A denial case in the member's organization and client; its deadlines scheduled at ``as_of``."""
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        case = DenialCase(
            denial_key=uuid.uuid4().hex,
            origin="manual",
            event_kind="denial",
            claim_key=f"T-{uuid.uuid4().hex[:10]}",
            payer=payer,
            payer_class=payer_class,
            remittance_date=remittance_date,
            service_date=service_date,
            amount_at_stake=Decimal("250.00"),
            state=state,
            state_changed_at=datetime.now(UTC),
            owner_user_id=owner_user_id,
        )
        db.add(case)
        db.flush()
        if schedule:
            schedule_case(db, case, as_of=as_of)
        return case.id
