"""Pausing and resuming automation of the selected client. Never commits.

A pause stops every automated path of `scopes.AUTOMATED_PATHS` (the inventory is in `scopes.py`):
aiPlatform never answers `applied` for a paused client or task (suggestions for a person still flow),
and the other paths call `require_not_paused` at the moment they would act, which refuses with
PRECONDITION_FAILED before anything is written (the step can be retried after resume). Pausing is idempotent (pausing what is paused changes nothing:
stopping must never fail). Resuming is refused while any subscribed blocker gives a reason.

`Services.resume_blockers` is the hook other namespaces' blockers are subscribed to (in the composition
root): each takes the tenant-scoped session and returns the reasons automation may not run now (empty:
no objection). It is consulted by `resume` and by `require_unblocked` (aiPlatform.recordAutonomyPolicy
turning on automatic mode); any reason is PRECONDITION_FAILED listing them all.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import PreconditionFailed
from api.core.hooks import Hook
from api.core.services import ResumeBlocker
from api.infra.db.base import utcnow
from api.integrations.operational_control.models import AutomationPause, AutomationPauseEvent
from api.integrations.operational_control.scopes import (
    AUTOMATED_PATHS,
    CLIENT_WIDE,
    pause_reasons,
    paused_message,
    scope_of,
)


@dataclass(frozen=True)
class PauseResult:
    pause: AutomationPause
    created: bool


def blocking_reasons(db: Session, blockers: Hook[ResumeBlocker]) -> list[str]:
    """Every subscribed blocker's reasons, in subscription order."""
    return [reason for reasons in blockers.collect(db) for reason in reasons]


def require_unblocked(db: Session, blockers: Hook[ResumeBlocker], action: str) -> None:
    """PRECONDITION_FAILED listing the blockers' reasons, if any says automation may not run."""
    reasons = blocking_reasons(db, blockers)
    if reasons:
        raise PreconditionFailed(f"Cannot {action}: " + "; ".join(reasons))


def pauses(db: Session) -> list[AutomationPause]:
    """The pauses in force, client-wide first, then by task."""
    rows = db.scalars(select(AutomationPause).order_by(AutomationPause.scope)).all()
    return sorted(rows, key=lambda p: (p.scope != CLIENT_WIDE, p.scope))


def paused_scopes(db: Session) -> frozenset[str]:
    return frozenset(db.scalars(select(AutomationPause.scope)))


def reasons_paused(db: Session, task: str) -> list[str]:
    """Why `task` is paused for the selected client (`client_paused`, `task_paused`); empty: it is not."""
    return pause_reasons(paused_scopes(db), task)


def require_not_paused(db: Session, task: str) -> None:
    """PRECONDITION_FAILED naming the pause when `task` (or the whole client) is paused; an automated
    path calls this before it acts, so a refused step has changed nothing."""
    assert task in AUTOMATED_PATHS, task  # a path outside the registry could never be paused
    reasons = reasons_paused(db, task)
    if reasons:
        raise PreconditionFailed(paused_message(task), details={"task": task, "pauses": reasons})


def _event(db: Session, scope: str, action: str, reason: str, user_id: int) -> None:
    db.add(AutomationPauseEvent(scope=scope, action=action, reason=reason, actor_user_id=user_id))


def pause(db: Session, task: str | None, reason: str, *, user_id: int) -> PauseResult:
    """Pause the client's automation (`task` None: every task). Already paused: the pause in force."""
    scope = scope_of(task)
    found = db.scalar(select(AutomationPause).where(AutomationPause.scope == scope))
    if found is not None:
        return PauseResult(found, created=False)
    row = AutomationPause(scope=scope, reason=reason, paused_by_user_id=user_id, paused_at=utcnow())
    try:
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:  # a concurrent pause of the same scope won: it is paused either way
        found = db.scalar(select(AutomationPause).where(AutomationPause.scope == scope))
        assert found is not None
        return PauseResult(found, created=False)
    _event(db, scope, "pause", reason, user_id)
    db.flush()
    return PauseResult(row, created=True)


def resume(db: Session, blockers: Hook[ResumeBlocker], task: str | None, reason: str, *, user_id: int) -> None:
    """Lift one pause (`task` None: the client-wide pause; a task's own pause stays until resumed by
    name). Not paused: PRECONDITION_FAILED. A blocker's reason: PRECONDITION_FAILED listing them."""
    scope = scope_of(task)
    found = db.scalar(select(AutomationPause).where(AutomationPause.scope == scope).with_for_update())
    if found is None:
        what = "the client's automation" if task is None else f"task '{task}'"
        raise PreconditionFailed(f"{what} is not paused")
    require_unblocked(db, blockers, "resume automation")
    db.delete(found)
    _event(db, scope, "resume", reason, user_id)
    db.flush()


def history(db: Session, limit: int) -> list[AutomationPauseEvent]:
    """The latest pause and resume events, newest first."""
    stmt = select(AutomationPauseEvent).order_by(AutomationPauseEvent.id.desc()).limit(limit)
    return list(db.scalars(stmt))
