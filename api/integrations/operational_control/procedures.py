"""operationalControl.*: pausing and resuming automation per client and per task."""

from __future__ import annotations

from typing import Any

from api.integrations.operational_control import service
from api.integrations.operational_control.schemas import PauseIn, ResumeIn, StateIn, StateOut
from api.integrations.operational_control.scopes import AUTOMATED_PATHS, CLIENT_WIDE, pause_reasons
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("operationalControl")


def _task(scope: str) -> str | None:
    return None if scope == CLIENT_WIDE else scope


def _path(task: str, description: str, scopes: frozenset[str]) -> dict[str, Any]:
    reasons = pause_reasons(scopes, task)
    return {"task": task, "description": description, "paused": bool(reasons), "reasons": reasons}


def _state(ctx: Context, history_limit: int = 20) -> StateOut:
    rows = service.pauses(ctx.db)
    scopes = frozenset(p.scope for p in rows)
    view: dict[str, Any] = {
        "client_paused": any(p.scope == CLIENT_WIDE for p in rows),
        "paused_tasks": [p.scope for p in rows if p.scope != CLIENT_WIDE],
        "pauses": [
            {
                "task": _task(p.scope),
                "reason": p.reason,
                "paused_by_user_id": p.paused_by_user_id,
                "paused_at": p.paused_at,
            }
            for p in rows
        ],
        "automated_paths": [_path(task, text, scopes) for task, text in AUTOMATED_PATHS.items()],
        "history": [
            {
                "task": _task(e.scope),
                "action": e.action,
                "reason": e.reason,
                "actor_user_id": e.actor_user_id,
                "created_at": e.created_at,
            }
            for e in service.history(ctx.db, history_limit)
        ],
    }
    return StateOut.model_validate(view)


@router.mutation("pause")
def pause(ctx: Context, input: PauseIn) -> StateOut:
    """Pause the client's automation, every task or one (`task`: an AI task, or payer_call,
    integration_run, execute_action), with a reason. While paused nothing happens automatically:
    aiPlatform answers queued, never applied (suggestions still reach people); a voice agent call
    (voiceAgent.runSimulation, a provider's dialing event), integrationControl.start and
    approvedActions.executeSandbox are PRECONDITION_FAILED naming the pause and change nothing, so they
    can be retried after resume. Data keeps flowing in (ingestion, pipelines, deadline notices, retention
    purges are not paused). Pausing what is already paused keeps the pause in force. Any member who
    may write can pause."""
    result = service.pause(ctx.db, input.task, input.reason, user_id=ctx.user_id)
    ctx.note("automation_pause", result.pause.scope, after={"scope": result.pause.scope, "created": result.created})
    return _state(ctx)


@router.mutation("resume", permission="manage")
def resume(ctx: Context, input: ResumeIn) -> StateOut:
    """Lift a pause with a reason: `task` omitted lifts the client-wide pause, a task lifts that task's
    own pause. Not paused: PRECONDITION_FAILED. Refused (PRECONDITION_FAILED listing every reason) while
    a registered activation gate objects. Admins only."""
    service.resume(ctx.db, ctx.services.resume_blockers, input.task, input.reason, user_id=ctx.user_id)
    ctx.note("automation_pause", input.task or CLIENT_WIDE, after={"scope": input.task or CLIENT_WIDE, "resumed": True})
    return _state(ctx)


@router.query("state")
def state(ctx: Context, input: StateIn) -> StateOut:
    """The pauses in force for the selected client (who, when, why), every automated task with whether
    it is paused now, and the latest pause/resume events."""
    return _state(ctx, input.history_limit)
