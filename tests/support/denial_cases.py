"""Denial cases written straight into a hand world's operational database (the ORM, inside the tenant),
for tests of what reads them (the extract, the KPI marts, arOperations) without the cases procedures.

`HandCase` is one case as a test writes it by hand: its claim, state, money and the moves of its history
(events). `replace_cases` first deletes the tenant's cases (a confirm may open some by itself), so the
world holds exactly the cases the test wrote and its expected numbers stay hand-written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import delete

from api.denials.cases.models import CaseEvent, DenialCase
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.hand_world import HandWorld


def at(day: str) -> datetime:
    """Noon UTC of an ISO day: far from any midnight, so the day is the same in every time zone used."""
    return datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)


@dataclass
class HandCase:
    name: str  # the test's own label, part of the denial key
    claim_key: str
    opened: str  # ISO day
    state: str
    state_changed: str  # ISO day
    amount_at_stake: str
    recovered: str = "0.00"
    written_off: str = "0.00"
    closed: str | None = None
    owner_user_id: int | None = None
    moves: list[tuple[str, str, str]] = field(default_factory=list)  # (from_state, to_state, ISO day)
    mover_user_id: int | None = None  # who made the moves (None: the platform); the opening is the platform's


def replace_cases(world: HandWorld, cases: list[HandCase]) -> dict[str, int]:
    """The tenant's cases replaced by `cases` (each with an `opened` event and its moves); name -> case id."""
    ids: dict[str, int] = {}
    with world.services.database.transaction() as db:
        set_scope(db, TenantScope(world.tenant.organization_id, world.tenant.client_id))
        db.execute(delete(CaseEvent))
        db.execute(delete(DenialCase))
        for c in cases:
            row = DenialCase(
                denial_key=f"hand:{c.name}",
                origin="manual",
                event_kind="denial",
                claim_key=c.claim_key,
                payer="KPI PAYER A",
                amount_at_stake=Decimal(c.amount_at_stake),
                recovered_amount=Decimal(c.recovered),
                written_off_amount=Decimal(c.written_off),
                state=c.state,
                state_changed_at=at(c.state_changed),
                closed_at=at(c.closed) if c.closed else None,
                owner_user_id=c.owner_user_id,
                created_at=at(c.opened),
            )
            db.add(row)
            db.flush()
            db.add(CaseEvent(case_id=row.id, kind="opened", to_state="open", created_at=at(c.opened)))
            for before, after, day in c.moves:
                db.add(
                    CaseEvent(
                        case_id=row.id,
                        kind="transition",
                        from_state=before,
                        to_state=after,
                        actor_user_id=c.mover_user_id,
                        created_at=at(day),
                    )
                )
            ids[c.name] = row.id
    return ids
