"""preventionFactory: prevention work items against the client's confirmed patterns. Functions take the
tenant-scoped Session and plain values; they never commit (the executor commits the call with its audit
event)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.core.lifecycle import transition as move
from api.core.permissions import explain
from api.infra.db.lookup import get_by_id, where_given
from api.infra.db.tenant_filter import get_scope
from api.intelligence.patterns import service as patterns
from api.intelligence.prevention_factory.lifecycle import WORK_ITEM
from api.intelligence.prevention_factory.models import PreventionWorkItem, PreventionWorkItemEvent
from api.platform.organizations import service as organizations


@dataclass(frozen=True)
class NewWorkItem:
    pattern_key: str
    title: str
    description: str | None
    owner_user_id: int
    due_date: date | None


def check_owner(db: Session, owner_user_id: int) -> None:
    """The owner must be a member whose membership reaches the session's client and who may write
    (as a case's owner, `cases.service.check_assignable`); INVALID_INPUT otherwise."""
    scope = get_scope(db)
    assert scope is not None and scope.client_id is not None  # work items live in a client's scope only
    role = organizations.role_reaching(db, owner_user_id, scope.client_id)
    if role is None:
        raise InvalidInput("Invalid input: 'ownerUserId' is not a member of this organization reaching this client")
    granted, _ = explain(role, "write")
    if not granted:
        raise InvalidInput(f"Invalid input: 'ownerUserId' has role '{role}', which cannot own work items")


def create(db: Session, new: NewWorkItem, *, user_id: int) -> PreventionWorkItem:
    """A work item, 'open', against a pattern this client confirmed (NOT_FOUND otherwise)."""
    confirmed = patterns.confirmed(db, new.pattern_key)
    check_owner(db, new.owner_user_id)
    item = PreventionWorkItem(
        confirmed_pattern_id=confirmed.id,
        pattern_key=confirmed.pattern_key,
        title=new.title,
        description=new.description,
        owner_user_id=new.owner_user_id,
        due_date=new.due_date,
        state="open",
        created_by=user_id,
    )
    db.add(item)
    db.flush()
    _record(db, item, None, "open", note=None, user_id=user_id)
    return item


def get(db: Session, item_id: int, *, for_update: bool = False) -> PreventionWorkItem:
    """One work item of the client, or NOT_FOUND."""
    return get_by_id(db, PreventionWorkItem, item_id, "Prevention work item", for_update=for_update)


def transition(
    db: Session, item_id: int, target: str, *, note: str | None, user_id: int
) -> tuple[PreventionWorkItem, str]:
    """Move the item along its lifecycle (PRECONDITION_FAILED for any other move); (item, previous state)."""
    item = get(db, item_id, for_update=True)
    previous = item.state
    item.state = move(WORK_ITEM, previous, target)
    _record(db, item, previous, target, note=note, user_id=user_id)
    return item, previous


def events(db: Session, item_id: int) -> list[PreventionWorkItemEvent]:
    """The item's moves, oldest first."""
    stmt = select(PreventionWorkItemEvent).where(PreventionWorkItemEvent.work_item_id == item_id)
    return list(db.scalars(stmt.order_by(PreventionWorkItemEvent.id)))


def list_statement(
    *, state: str | None = None, pattern_key: str | None = None, owner_user_id: int | None = None
) -> Select[Any]:
    """Work items by state, pattern and owner, each filter only when given; unordered, for paging."""
    return where_given(
        select(PreventionWorkItem),
        (PreventionWorkItem.state, state),
        (PreventionWorkItem.pattern_key, pattern_key),
        (PreventionWorkItem.owner_user_id, owner_user_id),
    )


def _record(
    db: Session, item: PreventionWorkItem, previous: str | None, target: str, *, note: str | None, user_id: int
) -> None:
    db.add(
        PreventionWorkItemEvent(
            work_item_id=item.id, from_state=previous, to_state=target, note=note, actor_user_id=user_id
        )
    )
    db.flush()  # stamped with the session's tenant now, inside the call's scope
