"""Publishing, approving and retiring knowledge versions; which version agents use. Never commits.

`publish` records a new version (the last + 1) as pending_approval; `approve` (publish's second form)
lets a person other than its author make it usable; `retire` makes a version unusable. Agents read
`active_for`: the highest approved version of the (kind, key), per `rules.active`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased

from api.automation.knowledge_control import rules
from api.automation.knowledge_control.lifecycle import KNOWLEDGE_VERSION
from api.automation.knowledge_control.models import KnowledgeVersion
from api.core.errors import Conflict
from api.core.lifecycle import transition
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.platform.organizations.service import require_independent


def get(db: Session, version_id: int, *, for_update: bool = False) -> KnowledgeVersion:
    return get_by_id(db, KnowledgeVersion, version_id, "Knowledge version", for_update=for_update)


@dataclass(frozen=True)
class NewVersion:
    kind: str
    key: str
    content: str
    note: str | None


def publish(db: Session, given: NewVersion, *, user_id: int) -> KnowledgeVersion:
    """A new version of (kind, key), pending approval; agents do not use it until someone else approves."""
    key = rules.normalise_key(given.kind, given.key)
    rules.check_content(given.kind, given.content)
    last = db.scalar(
        select(func.max(KnowledgeVersion.version)).where(
            KnowledgeVersion.kind == given.kind, KnowledgeVersion.key == key
        )
    )
    row = KnowledgeVersion(
        kind=given.kind,
        key=key,
        version=(last or 0) + 1,
        content=given.content,
        content_sha256=rules.content_sha256(given.content),
        note=given.note,
        state="pending_approval",
        author_user_id=user_id,
    )
    try:
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:
        raise Conflict(f"Another version of {given.kind} '{key}' was published at the same time; retry") from None
    return row


def approve(db: Session, version_id: int, *, reason: str, user_id: int, invited_window_days: int) -> KnowledgeVersion:
    """pending_approval -> approved, never by its author nor by someone the author invited within
    `invited_window_days` (FORBIDDEN); then the highest approved version of its (kind, key) is the one
    agents use."""
    row = get(db, version_id, for_update=True)
    rules.check_can_approve(row.author_user_id, user_id)
    require_independent(
        db, user_id, [row.author_user_id], window_days=invited_window_days, requester="this knowledge version's author"
    )
    row.state = transition(KNOWLEDGE_VERSION, row.state, "approved")
    row.approved_by_user_id, row.approved_at, row.approval_reason = user_id, utcnow(), reason
    db.flush()
    return row


def retire(db: Session, version_id: int, *, reason: str, user_id: int) -> KnowledgeVersion:
    """Make a version unusable (pending or approved); agents fall back to the previous approved version
    of the (kind, key), or to none (the built-in behaviour)."""
    row = get(db, version_id, for_update=True)
    row.state = transition(KNOWLEDGE_VERSION, row.state, "retired")
    row.retired_by_user_id, row.retired_at, row.retire_reason = user_id, utcnow(), reason
    db.flush()
    return row


# --- what agents use --------------------------------------------------------------------------------


def active_for(db: Session, kind: str, keys: Iterable[str]) -> KnowledgeVersion | None:
    """The active version of the first of `keys` (in order) that has one, for the selected client."""
    for key in keys:
        row = db.scalar(
            select(KnowledgeVersion)
            .where(KnowledgeVersion.kind == kind, KnowledgeVersion.key == key, KnowledgeVersion.state == "approved")
            .order_by(KnowledgeVersion.version.desc())
            .limit(1)
        )
        if row is not None:
            return row
    return None


# --- listing ----------------------------------------------------------------------------------------


def active_versions(db: Session) -> dict[tuple[str, str], int]:
    """(kind, key) -> the active version number, for every item with one."""
    stmt = (
        select(KnowledgeVersion.kind, KnowledgeVersion.key, func.max(KnowledgeVersion.version))
        .where(KnowledgeVersion.state == "approved")
        .group_by(KnowledgeVersion.kind, KnowledgeVersion.key)
    )
    return {(kind, key): version for kind, key, version in db.execute(stmt).tuples()}


def _highest_approved() -> Any:
    """The highest approved version of the row's own (client, kind, key), as a correlated subquery."""
    other = aliased(KnowledgeVersion)
    return (
        select(func.max(other.version))
        .where(
            other.client_id == KnowledgeVersion.client_id,
            other.kind == KnowledgeVersion.kind,
            other.key == KnowledgeVersion.key,
            other.state == "approved",
        )
        .scalar_subquery()
    )


def list_statement(kind: str | None, key: str | None, state: str | None) -> Select[Any]:
    """Versions, filtered by kind, key and the state a person sees (active and superseded are both
    stored approved: active is the highest approved of its item)."""
    normalised = None if key is None else key.strip() if kind is None else rules.normalise_key(kind, key)
    stored = state if state in ("pending_approval", "retired") else None
    stmt = where_given(
        select(KnowledgeVersion),
        (KnowledgeVersion.kind, kind),
        (KnowledgeVersion.key, normalised),
        (KnowledgeVersion.state, stored),
    )
    if state == "active":
        stmt = stmt.where(KnowledgeVersion.state == "approved", KnowledgeVersion.version == _highest_approved())
    elif state == "superseded":
        stmt = stmt.where(KnowledgeVersion.state == "approved", KnowledgeVersion.version < _highest_approved())
    return stmt


def view(row: KnowledgeVersion, active: dict[tuple[str, str], int]) -> dict[str, Any]:
    shown = rules.shown_state(row.state, row.version, active.get((row.kind, row.key)))
    return {
        **{
            k: getattr(row, k)
            for k in (
                "id",
                "kind",
                "key",
                "version",
                "content",
                "content_sha256",
                "note",
                "author_user_id",
                "created_at",
                "approved_by_user_id",
                "approved_at",
                "approval_reason",
                "retired_by_user_id",
                "retired_at",
                "retire_reason",
            )
        },
        "state": shown,
    }


def audit_view(row: KnowledgeVersion) -> dict[str, Any]:
    """What the audit log may digest: never the content, its SHA-256."""
    return {
        "kind": row.kind,
        "key": row.key,
        "version": row.version,
        "state": row.state,
        "content_sha256": row.content_sha256,
    }
