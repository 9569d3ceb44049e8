"""preventionFactory.*: prevention work items that stop a confirmed denial pattern from recurring
(open -> in_progress -> done, or cancelled; every move recorded)."""

from __future__ import annotations

from api.intelligence.prevention_factory import service
from api.intelligence.prevention_factory.models import PreventionWorkItem
from api.intelligence.prevention_factory.schemas import CreateIn, ListIn, TransitionIn, WorkItemOut
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("preventionFactory")


@router.mutation("create")
def create(ctx: Context, input: CreateIn) -> WorkItemOut:
    """Open a work item against a pattern this client confirmed (patterns.confirm; NOT_FOUND otherwise),
    owned by a member reaching this client who may write (else BAD_REQUEST), with an optional due date."""
    new = service.NewWorkItem(input.pattern_key, input.title, input.description, input.owner_user_id, input.due_date)
    item = service.create(ctx.db, new, user_id=ctx.user_id)
    ctx.note("prevention_work_item", item.id, after={"pattern_key": item.pattern_key, "owner": item.owner_user_id})
    return WorkItemOut.model_validate(item)


@router.query("list")
def list_items(ctx: Context, input: ListIn) -> Page[WorkItemOut]:
    """Work items of the client, newest first; filter by state, pattern and owner; paginated."""
    stmt = service.list_statement(state=input.state, pattern_key=input.pattern_key, owner_user_id=input.owner_user_id)
    return paginate(ctx.db, stmt, PreventionWorkItem.id, input, WorkItemOut.model_validate)


@router.mutation("transition")
def transition(ctx: Context, input: TransitionIn) -> WorkItemOut:
    """Move a work item: open -> in_progress | cancelled; in_progress -> done | cancelled | open; done and
    cancelled are final. Any other move is PRECONDITION_FAILED; each move is recorded with its note."""
    item, previous = service.transition(ctx.db, input.id, input.to, note=input.note, user_id=ctx.user_id)
    ctx.note("prevention_work_item", item.id, before={"state": previous}, after={"state": item.state})
    return WorkItemOut.model_validate(item)
