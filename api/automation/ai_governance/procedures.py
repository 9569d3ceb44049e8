"""aiGovernance.*: which AI tasks are enabled for the selected client."""

from __future__ import annotations

from dataclasses import asdict

from api.automation.ai_governance import service
from api.automation.ai_governance.schemas import ListIn, TaskEnablementOut, UpdateIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, decode_cursor, encode_cursor

router = rpc.namespace("aiGovernance")


@router.query("list")
def list_tasks(ctx: Context, input: ListIn) -> Page[TaskEnablementOut]:
    """Every AI task with whether it is enabled for the selected client (default: enabled, which without
    an autonomy policy means suggestions only), who set it, when and why; filter by `enabled`."""
    items = [s for s in service.settings(ctx.db) if input.enabled is None or s.enabled == input.enabled]
    start = decode_cursor(input.cursor) or 0
    page = items[start : start + input.limit]
    more = start + input.limit < len(items)
    return Page[TaskEnablementOut](
        items=[TaskEnablementOut.model_validate(asdict(s)) for s in page],
        next_cursor=encode_cursor(start + input.limit) if more else None,
    )


@router.mutation("update", permission="manage")
def update(ctx: Context, input: UpdateIn) -> TaskEnablementOut:
    """Enable or disable one AI task for the selected client, with a reason. A disabled task is refused
    by aiPlatform.execute (nothing runs for it). Admins only."""
    result = service.update(ctx.db, input.task, input.enabled, input.reason, user_id=ctx.user_id)
    ctx.note("ai_task_setting", input.task, after={"task": input.task, "enabled": input.enabled})
    return TaskEnablementOut.model_validate(asdict(result))
