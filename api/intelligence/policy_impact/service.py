"""policyImpact: the items of the selected client. Functions take the tenant-scoped Session and plain values;
they never commit (the executor commits the call with its audit event)."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.intelligence.policy_impact.models import PolicyImpactItem
from api.infra.db.lookup import OnDays, get_by_id, where_given


def get(db: Session, item_id: int) -> PolicyImpactItem:
    """One item of the selected client, or NOT_FOUND."""
    return get_by_id(db, PolicyImpactItem, item_id, "Item")


def list_statement(
    *, state: str | None = None, created_from: date | None = None, created_to: date | None = None
) -> Select[Any]:
    """Items by state, created within the given days (both included); each filter only when given;
    unordered, for paging."""
    return where_given(
        select(PolicyImpactItem),
        (PolicyImpactItem.state, state),
        OnDays(PolicyImpactItem.created_at, created_from, created_to),
    )
