"""Appending to and verifying the hash-chained audit log."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Select, select, update
from sqlalchemy.orm import Session

from api.core.services import AuditRecord
from api.infra.db.lookup import OneOf, where_given
from api.platform.audit.digest import GENESIS, chain_hash, chained_fields, digest
from api.platform.audit.models import AuditEvent, AuditHead


def scope_for(organization_id: int | None) -> str:
    return f"org:{organization_id}" if organization_id is not None else "platform"


def list_statement(
    organization_id: int,
    reach: Collection[int] | None,
    *,
    procedure: str | None = None,
    actor_user_id: int | None = None,
    target_type: str | None = None,
    target_id: str | None = None,
) -> Select[AuditEvent]:
    """The organization's events, filtered by procedure, actor and target when given; for a membership
    reaching only some clients (`reach`), the events of those clients (organization-level events,
    without a client, are for organization-wide members). Unordered, for paging."""
    return where_given(
        select(AuditEvent).where(AuditEvent.scope == scope_for(organization_id)),
        OneOf(AuditEvent.client_id, reach),
        (AuditEvent.procedure, procedure),
        (AuditEvent.actor_user_id, actor_user_id),
        (AuditEvent.target_type, target_type),
        (AuditEvent.target_id, target_id),
    )


def append(
    db: Session,
    *,
    key: bytes,
    organization_id: int | None,
    client_id: int | None,
    actor_user_id: int | None,
    actor_kind: str,
    procedure: str,
    input_value: Any,
    target_type: str | None = None,
    target_id: str | None = None,
    before: Any = None,
    after: Any = None,
) -> AuditEvent:
    """Append one event in the caller's transaction (it commits or rolls back with the mutation)."""
    scope = scope_for(organization_id)
    # Bump the head first: the UPDATE takes the row lock (PostgreSQL) or the write
    # lock (SQLite), so concurrent appends to one chain queue here instead of forking it.
    # Session.execute is typed as a plain Result; a bulk UPDATE returns the CursorResult that has rowcount.
    bumped = cast(
        "CursorResult[Any]",
        db.execute(
            update(AuditHead)
            .where(AuditHead.scope == scope)
            .values(seq=AuditHead.seq + 1)
            .execution_options(synchronize_session=False)
        ),
    ).rowcount
    if not bumped:
        db.add(AuditHead(scope=scope, seq=1, last_hash=GENESIS))
        db.flush()
    head = db.execute(select(AuditHead.seq, AuditHead.last_hash).where(AuditHead.scope == scope)).one()
    event = AuditEvent(
        scope=scope,
        seq=head.seq,
        organization_id=organization_id,
        client_id=client_id,
        actor_user_id=actor_user_id,
        actor_kind=actor_kind,
        procedure=procedure,
        target_type=target_type,
        target_id=target_id,
        input_digest=digest(input_value, key) or digest({}, key),
        before_digest=digest(before, key),
        after_digest=digest(after, key),
        created_at=datetime.now(UTC),
        prev_hash=head.last_hash,
    )
    event.hash = chain_hash(head.last_hash, chained_fields(event))
    db.add(event)
    db.execute(
        update(AuditHead)
        .where(AuditHead.scope == scope)
        .values(last_hash=event.hash)
        .execution_options(synchronize_session=False)
    )
    return event


@dataclass(frozen=True)
class Anchor:
    """A signed checkpoint: the chain `scope` had `hash` at `seq` when it was signed."""

    seq: int
    hash: str
    signed_at: str

    def describe(self) -> str:
        return f"the signed checkpoint of event #{self.seq} ({self.signed_at})"


@dataclass(frozen=True)
class ChainReport:
    scope: str
    events: int
    valid: bool
    first_broken_seq: int | None
    problem: str | None
    checkpoints: int = 0  # signed checkpoints the chain was held against
    last_hash: str | None = None  # the verified head (valid chains only)


def record(db: Session, entry: AuditRecord, *, key: bytes) -> AuditEvent:
    """Append one mutation's record (the audit sink wraps this, see `api.platform.audit.anchor`)."""
    return append(
        db,
        key=key,
        organization_id=entry.organization_id,
        client_id=entry.client_id,
        actor_user_id=entry.actor_user_id,
        actor_kind=entry.actor_kind,
        procedure=entry.procedure,
        input_value=entry.input_value,
        target_type=entry.target_type,
        target_id=entry.target_id,
        before=entry.before,
        after=entry.after,
    )


def verify_rows(
    scope: str, rows: Iterable[AuditEvent], head_hash: str | None, anchors: Mapping[int, Anchor] | None = None
) -> ChainReport:
    """Walk a chain in seq order; any edited, deleted or inserted row breaks it. `anchors` are signed
    checkpoints (seq -> hash) kept outside the database: a chain rewritten and re-hashed end to end
    still differs from them."""
    anchors = anchors or {}
    prev = GENESIS
    expected_seq = 1
    count = 0
    for row in rows:
        count += 1
        problem = _row_problem(row, expected_seq, prev, anchors)
        if problem is not None:
            return ChainReport(scope, count, False, problem[0], problem[1], checkpoints=len(anchors))
        prev = row.hash
        expected_seq += 1
    beyond = [seq for seq in anchors if seq >= expected_seq]
    if beyond:
        seq = min(beyond)
        return ChainReport(scope, count, False, seq, f"event #{seq} is missing: {anchors[seq].describe()} names it")
    if head_hash is not None and head_hash != prev:
        return ChainReport(
            scope, count, False, expected_seq, "the newest events were removed", checkpoints=len(anchors)
        )
    return ChainReport(scope, count, True, None, None, checkpoints=len(anchors), last_hash=prev)


def _row_problem(
    row: AuditEvent, expected_seq: int, prev: str, anchors: Mapping[int, Anchor]
) -> tuple[int, str] | None:
    if row.seq != expected_seq:
        return expected_seq, f"event #{expected_seq} is missing"
    if row.prev_hash != prev:
        return row.seq, f"event #{row.seq} does not follow its predecessor"
    if chain_hash(prev, chained_fields(row)) != row.hash:
        return row.seq, f"event #{row.seq} was altered after it was written"
    anchor = anchors.get(row.seq)
    if anchor is not None and anchor.hash != row.hash:
        return row.seq, f"event #{row.seq} differs from {anchor.describe()}: the chain was rewritten"
    return None


def verify_scope(db: Session, scope: str, anchors: Mapping[int, Anchor] | None = None) -> ChainReport:
    rows = db.scalars(
        select(AuditEvent).where(AuditEvent.scope == scope).order_by(AuditEvent.seq).execution_options(yield_per=1000)
    )
    head = db.scalar(select(AuditHead.last_hash).where(AuditHead.scope == scope))
    return verify_rows(scope, rows, head, anchors)
