"""AI task enablement per client. Never commits.

Default (no row): every task is enabled. Enabled is not automatic: without an autonomy policy
(aiPlatform.recordAutonomyPolicy) a task only suggests, so a new client gets suggestions and nothing is
applied until someone records a policy that allows it. A disabled task is refused by aiPlatform.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.automation.ai_governance.models import AiTaskSetting
from api.infra.db.base import utcnow
from api.integrations.operational_control.scopes import TASKS


@dataclass(frozen=True)
class TaskEnablement:
    task: str
    enabled: bool
    source: str  # default | set
    reason: str | None
    updated_by_user_id: int | None
    updated_at: datetime | None


def _view(task: str, row: AiTaskSetting | None) -> TaskEnablement:
    if row is None:
        return TaskEnablement(task, True, "default", None, None, None)
    return TaskEnablement(task, row.enabled, "set", row.reason, row.updated_by_user_id, row.updated_at)


def settings(db: Session) -> list[TaskEnablement]:
    """Every task of the selected client, in `TASKS` order."""
    rows = {r.task: r for r in db.scalars(select(AiTaskSetting))}
    return [_view(task, rows.get(task)) for task in TASKS]


def is_enabled(db: Session, task: str) -> bool:
    row = db.scalar(select(AiTaskSetting).where(AiTaskSetting.task == task))
    return True if row is None else row.enabled


def update(db: Session, task: str, enabled: bool, reason: str, *, user_id: int) -> TaskEnablement:
    """Enable or disable one task for the selected client (the last update wins)."""
    row = db.scalar(select(AiTaskSetting).where(AiTaskSetting.task == task).with_for_update())
    if row is None:
        row = AiTaskSetting(task=task, enabled=enabled, reason=reason, updated_by_user_id=user_id, updated_at=utcnow())
        db.add(row)
    row.enabled, row.reason, row.updated_by_user_id, row.updated_at = enabled, reason, user_id, utcnow()
    db.flush()
    return _view(task, row)
