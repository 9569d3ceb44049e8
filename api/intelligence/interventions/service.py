"""interventions: creating, reading and listing the client's interventions. Functions take the
tenant-scoped Session and plain values; they never commit (the executor commits the call with its
audit event)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.services import InterventionFacts
from api.infra.db.lookup import get_by_id, where_given
from api.intelligence.interventions.models import Intervention


@dataclass(frozen=True)
class NewIntervention:
    """What `create` needs (already validated: the pattern key is 16 hex, the action key a slug)."""

    name: str
    pattern_key: str
    action_key: str
    category: str
    start_date: date
    payer_key: str | None = None
    carc: str | None = None
    service_line: str | None = None
    facility: str | None = None
    description: str | None = None


def create(db: Session, new: NewIntervention, *, user_id: int) -> Intervention:
    """A planned intervention of the selected client."""
    intervention = Intervention(
        name=new.name,
        pattern_key=new.pattern_key,
        action_key=new.action_key,
        payer_key=new.payer_key,
        category=new.category,
        carc=new.carc.upper() if new.carc else None,
        service_line=new.service_line,
        facility=new.facility,
        start_date=new.start_date,
        description=new.description,
        state="planned",
        created_by=user_id,
    )
    db.add(intervention)
    db.flush()
    return intervention


def get(db: Session, intervention_id: int, *, for_update: bool = False) -> Intervention:
    """One intervention of the selected client, or NOT_FOUND."""
    return get_by_id(db, Intervention, intervention_id, "Intervention", for_update=for_update)


def list_statement(
    *, state: str | None = None, pattern_key: str | None = None, action_key: str | None = None
) -> Select[Any]:
    """Interventions by state, pattern and action; each filter only when given; unordered, for paging."""
    return where_given(
        select(Intervention),
        (Intervention.state, state),
        (Intervention.pattern_key, pattern_key),
        (Intervention.action_key, action_key),
    )


def intervention_facts(db: Session, intervention_id: int) -> InterventionFacts | None:
    """The client's intervention as the evidence measures it, or None (the services' `intervention_of`,
    which evidence asks without importing this context)."""
    found = db.scalar(select(Intervention).where(Intervention.id == intervention_id))
    if found is None:
        return None
    return InterventionFacts(
        id=found.id,
        pattern_key=found.pattern_key,
        action_key=found.action_key,
        start_date=found.start_date,
        payer_key=found.payer_key,
        category=found.category,
        carc=found.carc,
        service_line=found.service_line,
        facility=found.facility,
    )
