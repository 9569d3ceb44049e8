"""aiPlatform.*: AI tasks on denial cases under the client's autonomy policy, and their evaluation."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from api.automation.ai_platform import service
from api.automation.ai_platform.models import AiExecution, AutonomyPolicy
from api.automation.ai_platform.schemas import (
    DecideIn,
    DecisionOut,
    EvaluationIn,
    EvaluationOut,
    ExecuteIn,
    ExecutionOut,
    GateIn,
    GateOut,
    ListExecutionsIn,
    MetricsIn,
    MetricsOut,
    PolicyIn,
    PolicyOut,
)
from api.integrations.operational_control.scopes import TASKS
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("aiPlatform")


def _decision(d: service.Decided) -> dict[str, Any]:
    i = d.inputs
    return {
        "task": i.task,
        "outcome": d.decision.outcome,
        "reasons": list(d.decision.reasons),
        "confidence": i.confidence,
        "amount_at_stake": i.amount_at_stake,
        "policy_version": d.policy.version if d.policy else None,
        "policy_mode": d.policy.mode if d.policy else None,
        "enabled": i.enabled,
        "pauses": list(i.pause_reasons),
        "evaluation": {"accuracy": i.evaluation.accuracy, "n": i.evaluation.n},
    }


def _policy(row: AutonomyPolicy) -> PolicyOut:
    return PolicyOut.model_validate(
        {
            **{k: getattr(row, k) for k in ("id", "task", "version", "mode", "min_confidence", "reason")},
            "max_amount_at_stake": row.max_amount,
            "min_evaluation_accuracy": row.min_accuracy,
            "min_evaluated_samples": row.min_samples,
            "created_by_user_id": row.created_by_user_id,
            "created_at": row.created_at,
        }
    )


@router.mutation("execute")
def execute(ctx: Context, input: ExecuteIn) -> ExecutionOut:
    """Run an AI task on a case through the configured provider (only 'offline': deterministic rules and
    templates; another configured name is PRECONDITION_FAILED 'not configured'), decide under the
    client's autonomy policy (see decideAutonomy), store the execution (inputs' digests, output,
    confidence, decision, reasons, policy version, proof digest) and apply the result only when the
    decision is `applied` (classify_denial writes the case's category; other tasks are recorded as
    accepted). `queued` waits for a person; a refused execution keeps no output. Nothing is sent
    outside the platform. Another client's case is NOT_FOUND."""
    row = service.execute(
        ctx.db,
        input.task,
        input.case_id,
        provider_name=ctx.services.settings.ai_provider,
        key=ctx.services.digest_key,
        user_id=ctx.user_id,
    )
    ctx.note("ai_execution", row.id, after=service.audit_view(row))
    return ExecutionOut.model_validate(row)


@router.query("decideAutonomy")
def decide_autonomy(ctx: Context, input: DecideIn) -> DecisionOut:
    """The autonomy decision for a task at a confidence and amount at stake under the client's state now:
    applied, queued (for a person) or refused, with every reason. Refused: the task is disabled
    (aiGovernance) or the policy is off. Queued: automation is paused for the client or the task
    (operationalControl; a paused client is never applied), there is no policy (suggest only), the
    policy suggests only, or an automatic policy's threshold is not met (confidence, amount at stake,
    evaluated samples, evaluated accuracy; thresholds inclusive). Otherwise applied (`within_policy`)."""
    return DecisionOut.model_validate(
        _decision(service.decide_for(ctx.db, input.task, input.confidence, input.amount_at_stake))
    )


@router.query("autonomySafetyGate")
def autonomy_safety_gate(ctx: Context, input: GateIn) -> GateOut:
    """What execute would decide for this task on this case, without running the task, storing or
    applying anything: the decideAutonomy rules with the case's amount still at stake and the given
    confidence (omitted: 1.0, so `applied` means a confident enough result would be applied and
    anything else means no result can be). Another client's case is NOT_FOUND."""
    decided, case = service.gate(ctx.db, input.task, input.case_id, input.confidence)
    return GateOut.model_validate(
        {**_decision(decided), "case_id": case.id, "confidence_assumed": input.confidence is None}
    )


@router.mutation("recordAutonomyPolicy", permission="manage")
def record_autonomy_policy(ctx: Context, input: PolicyIn) -> PolicyOut:
    """Record a new version of the client's autonomy policy for a task (every record is a new version;
    the latest is in force): mode off | suggest_only | auto_below_threshold, the minimum confidence and
    the maximum amount at stake to apply, the minimum evaluated accuracy and samples. Turning on
    auto_below_threshold is PRECONDITION_FAILED while an activation gate objects (listing its reasons).
    Admins only."""
    values = service.PolicyValues(
        task=input.task,
        mode=input.mode,
        min_confidence=input.min_confidence,
        max_amount=input.max_amount_at_stake,
        min_accuracy=input.min_evaluation_accuracy,
        min_samples=input.min_evaluated_samples,
        reason=input.reason,
    )
    row = service.record_policy(ctx.db, ctx.services.resume_blockers, values, user_id=ctx.user_id)
    ctx.note("ai_autonomy_policy", row.id, after={"task": row.task, "version": row.version, "mode": row.mode})
    return _policy(row)


@router.mutation("recordEvaluation")
def record_evaluation(ctx: Context, input: EvaluationIn) -> EvaluationOut:
    """Record a labelled result: an execution (`executionId`: its task, label and confidence) and the true
    label, or `task`, `predicted`, `confidence` and the true label. An execution is evaluated once
    (CONFLICT after). Evaluations feed evaluationMetrics and the policy's accuracy threshold."""
    values = service.EvaluationValues(
        actual=input.actual,
        execution_id=input.execution_id,
        task=input.task,
        predicted=input.predicted,
        confidence=input.confidence,
    )
    row = service.record_evaluation(ctx.db, values, user_id=ctx.user_id)
    ctx.note("ai_evaluation", row.id, after={"task": row.task, "execution_id": row.execution_id})
    return EvaluationOut.model_validate(row)


@router.query("evaluationMetrics")
def evaluation_metrics(ctx: Context, input: MetricsIn) -> MetricsOut:
    """Per task, over the client's recorded evaluations: n, accuracy, precision and recall per label and
    their macro means (0/0 counts 0), expected calibration error over 10 equal-width confidence bins,
    and the Brier score of the confidence as the probability of being right. No evaluations: n 0 and
    null metrics."""
    tasks = TASKS if input.task is None else (input.task,)
    items = [{"task": task, **asdict(service.metrics_for(ctx.db, task))} for task in tasks]
    return MetricsOut.model_validate({"items": items})


@router.query("listExecutions")
def list_executions(ctx: Context, input: ListExecutionsIn) -> Page[ExecutionOut]:
    """The client's executions, newest first; filter by task, case and state (queued: waiting for a
    person)."""
    stmt = service.executions_statement(input.task, input.case_id, input.state)
    return paginate(ctx.db, stmt, AiExecution.id, input, ExecutionOut.model_validate)


@router.query("listPolicies")
def list_policies(ctx: Context, input: MetricsIn) -> list[PolicyOut]:
    """Every version of the client's autonomy policies (of one task, or all), newest version first."""
    rows = ctx.db.scalars(
        service.policies_statement(input.task).order_by(AutonomyPolicy.task, AutonomyPolicy.version.desc())
    )
    return [_policy(r) for r in rows]
