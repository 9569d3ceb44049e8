"""agentWorkbench.*: the queue of AI results waiting for a person, accepting or rejecting them, and replays."""

from __future__ import annotations

from dataclasses import asdict

from api.automation.agent_workbench import service
from api.automation.agent_workbench.schemas import QueueIn, QueueItemOut, ReplayIn, ReplayOut, ReviewIn, ReviewOut
from api.automation.ai_platform.models import AiExecution
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("agentWorkbench")


@router.query("queue")
def queue(ctx: Context, input: QueueIn) -> Page[QueueItemOut]:
    """The client's AI executions waiting for a person (state queued), newest first; filter by task and
    case. Each with its case, task, label, confidence, output, the reasons the policy queued it, the
    policy version and the knowledge versions it read."""
    stmt = service.queue_statement(input.task, input.case_id)
    return paginate(ctx.db, stmt, AiExecution.id, input, QueueItemOut.model_validate)


@router.mutation("accept")
def accept(ctx: Context, input: ReviewIn) -> ReviewOut:
    """Accept a queued execution, with a reason: its stored result is applied exactly as an automatic
    application would (classify_denial writes the case's category; other tasks are recorded as
    accepted), the execution becomes accepted and who and why are recorded. Allowed while automation is
    paused (operationalControl): a pause stops automatic application only, never a person. Once only:
    an execution not queued (already accepted or rejected, or applied or refused by the policy) is
    PRECONDITION_FAILED, as is one whose task aiGovernance disabled. Another client's is NOT_FOUND."""
    review = service.accept(
        ctx.db, input.execution_id, reason=input.reason, user_id=ctx.user_id, key=ctx.services.digest_key
    )
    ctx.note("ai_execution", input.execution_id, after=service.audit_view(ctx.db, review))
    return ReviewOut.model_validate(service.review_view(ctx.db, review))


@router.mutation("reject")
def reject(ctx: Context, input: ReviewIn) -> ReviewOut:
    """Reject a queued execution, with a reason: nothing is applied, the execution becomes rejected and
    who and why are recorded. Once only (PRECONDITION_FAILED when not queued). Another client's is
    NOT_FOUND."""
    review = service.reject(
        ctx.db, input.execution_id, reason=input.reason, user_id=ctx.user_id, key=ctx.services.digest_key
    )
    ctx.note("ai_execution", input.execution_id, after=service.audit_view(ctx.db, review))
    return ReviewOut.model_validate(service.review_view(ctx.db, review))


@router.query("replay")
def replay(ctx: Context, input: ReplayIn) -> ReplayOut:
    """Re-run an execution's task on its case as the case is now, under another policy version of the
    task (`policyVersion`; omitted: the one in force) and/or other knowledge versions
    (`knowledgeVersionIds`, any state, each replacing the active version of its kind; a kind the task
    does not read is BAD_REQUEST), and compare with what was stored: both runs (label, confidence,
    decision with reasons under the client's state now, output, knowledge read) and what differs (output
    compared leaf by leaf). Stores and applies nothing. Another client's execution, policy version or
    knowledge version is NOT_FOUND."""
    r = service.replay(
        ctx.db,
        input.execution_id,
        policy_version=input.policy_version,
        knowledge_version_ids=input.knowledge_version_ids,
        provider=ctx.services.settings.ai_provider,
    )
    row = r.execution
    return ReplayOut.model_validate(
        {
            "execution_id": row.id,
            "case_id": row.case_id,
            "task": row.task,
            "original": {**asdict(r.original), "knowledge_versions": row.knowledge_versions},
            "replayed": {**asdict(r.replayed), "knowledge_versions": [k.ref() for k in r.replayed_knowledge]},
            "replayed_input_digests": r.replayed_input_digests,
            "differences": {**asdict(r.differences), "any": r.differences.any},
        }
    )
