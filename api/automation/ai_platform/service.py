"""Running AI tasks on cases under the client's autonomy policy; policies and evaluations. Never commits.

`execute` runs a task through the configured provider (`providers.py`), decides with `autonomy.decide`
on the client's current policy, pauses (operationalControl), evaluation record and enablement
(aiGovernance), stores the execution with its inputs' digests and a keyed proof digest (`proof.py`),
and applies the result only when the decision is `applied`: classify_denial then writes the case's
category (hard/soft, preventable); the other tasks have nothing to write on the case, so applying them
records the result as accepted (a case event). Nothing ever leaves the platform. `queued` waits for a
person; a refused execution keeps no output.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.automation.ai_governance import service as governance
from api.automation.ai_platform import autonomy, metrics, proof
from api.automation.ai_platform.models import AiEvaluation, AiExecution, AutonomyPolicy
from api.automation.ai_platform.providers import (
    KNOWLEDGE_READ,
    CaseInputs,
    EvidenceText,
    Knowledge,
    OverturnEstimate,
    TaskResult,
    knowledge_keys,
    provider_for,
)
from api.automation.knowledge_control import service as knowledge
from api.automation.knowledge_control.models import KnowledgeVersion
from api.core.errors import Conflict, InvalidInput
from api.core.hooks import Hook
from api.core.services import ResumeBlocker
from api.denials.appeal_assembly import letter
from api.denials.cases import service as cases
from api.denials.human_attention import service as attention
from api.evidence.evidence_control import service as evidence
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.integrations.operational_control import service as control
from pipelines.ingest.money import quantize

EVIDENCE_TASKS = frozenset({"draft_appeal_letter", "summarise_evidence"})
CASE_EVENT_APPLIED = "ai_applied"


# --- policies -------------------------------------------------------------------------------------


def current_policy(db: Session, task: str) -> AutonomyPolicy | None:
    stmt = select(AutonomyPolicy).where(AutonomyPolicy.task == task).order_by(AutonomyPolicy.version.desc()).limit(1)
    return db.scalar(stmt)


def policy_rule(row: AutonomyPolicy | None) -> autonomy.Policy | None:
    if row is None:
        return None
    mode = next(m for m in autonomy.MODES if m == row.mode)
    return autonomy.Policy(mode, row.min_confidence, row.max_amount, row.min_accuracy, row.min_samples, row.version)


@dataclass(frozen=True)
class PolicyValues:
    task: str
    mode: str
    min_confidence: float
    max_amount: Decimal
    min_accuracy: float
    min_samples: int
    reason: str


def record_policy(db: Session, blockers: Hook[ResumeBlocker], values: PolicyValues, *, user_id: int) -> AutonomyPolicy:
    """A new version of the task's policy (version = the last + 1). Turning on automatic mode consults
    operationalControl's activation gates first (PRECONDITION_FAILED listing their reasons)."""
    if values.mode == "auto_below_threshold":
        control.require_unblocked(db, blockers, "turn on automatic mode")
    last = current_policy(db, values.task)
    row = AutonomyPolicy(
        task=values.task,
        version=1 if last is None else last.version + 1,
        mode=values.mode,
        min_confidence=values.min_confidence,
        max_amount=quantize(values.max_amount),
        min_accuracy=values.min_accuracy,
        min_samples=values.min_samples,
        reason=values.reason,
        created_by_user_id=user_id,
    )
    try:
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:
        raise Conflict(f"Another policy version for '{values.task}' was recorded at the same time; retry") from None
    return row


def policies_statement(task: str | None) -> Select[AutonomyPolicy]:
    stmt = select(AutonomyPolicy)
    return stmt if task is None else stmt.where(AutonomyPolicy.task == task)


# --- the decision ---------------------------------------------------------------------------------


def evaluation_record(db: Session, task: str) -> autonomy.Evaluation:
    """The task's labelled record for the selected client: accuracy over every evaluation recorded."""
    hit = case((AiEvaluation.predicted == AiEvaluation.actual, 1), else_=0)
    row = db.execute(
        select(func.count(AiEvaluation.id), func.coalesce(func.sum(hit), 0)).where(AiEvaluation.task == task)
    ).one()
    n, hits = int(row[0]), int(row[1])
    return autonomy.Evaluation(hits / n if n else None, n)


@dataclass(frozen=True)
class Decided:
    decision: autonomy.Decision
    inputs: autonomy.DecisionInputs
    policy: AutonomyPolicy | None

    def context(self) -> dict[str, Any]:
        e = self.inputs.evaluation
        return {
            "enabled": self.inputs.enabled,
            "pauses": list(self.inputs.pause_reasons),
            "evaluation": {"accuracy": e.accuracy, "n": e.n},
        }


def decide_for(db: Session, task: str, confidence: float, amount_at_stake: Decimal) -> Decided:
    """The decision for `task` at this confidence and amount under the client's state now."""
    return decide_under(db, task, confidence, amount_at_stake, current_policy(db, task))


def decide_under(
    db: Session, task: str, confidence: float, amount_at_stake: Decimal, policy: AutonomyPolicy | None
) -> Decided:
    """The decision under the given policy version (a replay's), with the client's state now."""
    inputs = autonomy.DecisionInputs(
        task=task,
        policy=policy_rule(policy),
        confidence=confidence,
        amount_at_stake=quantize(amount_at_stake),
        pause_reasons=tuple(control.reasons_paused(db, task)),
        evaluation=evaluation_record(db, task),
        enabled=governance.is_enabled(db, task),
    )
    return Decided(autonomy.decide(inputs), inputs, policy)


def still_at_stake(c: cases.Case) -> Decimal:
    return attention.at_stake(c.amount_at_stake, c.recovered_amount)


def gate(db: Session, task: str, case_id: int, confidence: float | None) -> tuple[Decided, cases.Case]:
    """What execute would decide for the case without running the task: at the given confidence, or
    (omitted) at confidence 1.0, the best a result could have."""
    c = cases.get_case(db, case_id)
    return decide_for(db, task, 1.0 if confidence is None else confidence, still_at_stake(c)), c


# --- running a task -------------------------------------------------------------------------------


def claim_facts(c: cases.Case) -> letter.ClaimFacts:
    return letter.ClaimFacts(
        payer=c.payer,
        claim_key=c.claim_key,
        payer_claim_number=c.payer_claim_number,
        service_date=c.service_date,
        remittance_date=c.remittance_date,
        billed_amount=c.billed_amount,
        amount_at_stake=c.amount_at_stake,
        carc=c.carc,
        rarcs=tuple(c.rarcs or ()),
        group_code=c.group_code,
        denial_category=c.denial_category,
    )


def _overturn(db: Session, c: cases.Case) -> OverturnEstimate:
    estimate = attention.estimate_for(attention.fit_model(db), c.payer, c.denial_category, c.carc)
    low, high = estimate.interval()
    return OverturnEstimate(estimate.mean, low, high, estimate.basis.level, estimate.basis.n)


def knowledge_input(row: KnowledgeVersion) -> Knowledge:
    return Knowledge(row.id, row.kind, row.key, row.version, row.content, row.content_sha256)


def active_knowledge(db: Session, task: str, facts: letter.ClaimFacts) -> tuple[Knowledge, ...]:
    """The active knowledgeControl versions the task reads for this case (at most one per kind)."""
    found = (knowledge.active_for(db, kind, knowledge_keys(kind, facts)) for kind in KNOWLEDGE_READ.get(task, ()))
    return tuple(knowledge_input(row) for row in found if row is not None)


def case_inputs(db: Session, task: str, c: cases.Case, today: date) -> tuple[CaseInputs, dict[str, str]]:
    """What the task reads of the case, and the SHA-256 digests of each input (facts, evidence, model,
    knowledge versions)."""
    facts = claim_facts(c)
    docs = evidence.documents_for_case(db, c.id) if task in EVIDENCE_TASKS else []
    texts = tuple(EvidenceText(d.doc_type, d.title, d.redacted_text) for d in docs)
    overturn = _overturn(db, c) if task == "predict_overturn" else None
    known = active_knowledge(db, task, facts)
    inputs = CaseInputs(c.id, c.state, c.payer, facts, c.appeal_due_on, today, overturn, texts, known)
    digests = {
        "case": proof.sha256_of(
            {
                "id": c.id,
                "state": c.state,
                "facts": {k: str(v) if v is not None else None for k, v in vars(facts).items()},
                "appealDueOn": c.appeal_due_on.isoformat() if c.appeal_due_on else None,
                "today": today.isoformat(),
            }
        )
    }
    if task in EVIDENCE_TASKS:
        digests["evidence"] = proof.sha256_of(
            [{"id": d.id, "sha256": d.sha256, "redactedText": d.redacted_text} for d in docs]
        )
    if overturn is not None:
        digests["model"] = proof.sha256_of(vars(overturn))
    if known:
        digests["knowledge"] = proof.sha256_of([k.ref() for k in known])
    return inputs, digests


def _apply(db: Session, c: cases.Case, row: AiExecution, result: TaskResult, user_id: int) -> dict[str, Any]:
    """Apply an `applied` result to the case; what changed."""
    effect: dict[str, Any] = {"kind": "accepted"}
    if row.task == "classify_denial" and result.output.get("isDenial"):
        effect = {"kind": "case_category", "from": c.denial_category, "to": result.output["category"]}
        c.denial_category = result.output["category"]
        c.hard_or_soft = result.output.get("hardOrSoft")
        c.preventable = result.output.get("preventable")
    cases.add_event(
        db,
        c,
        CASE_EVENT_APPLIED,
        actor_user_id=user_id,
        details={"executionId": row.id, "task": row.task, "effect": effect},
    )
    return effect


def apply_accepted(db: Session, row: AiExecution, user_id: int) -> dict[str, Any]:
    """Apply a queued execution a person accepted (agentWorkbench): the same effect as an automatic
    application of its stored result; what changed."""
    c = cases.get_case(db, row.case_id, for_update=row.task == "classify_denial")
    return _apply(db, c, row, TaskResult(row.label, row.output or {}, row.confidence), user_id)


def execute(db: Session, task: str, case_id: int, *, provider_name: str, key: bytes, user_id: int) -> AiExecution:
    """Run `task` on the case, decide, store, and apply when the decision is `applied`."""
    provider = provider_for(provider_name)
    c = cases.get_case(db, case_id, for_update=task == "classify_denial")
    inputs, digests = case_inputs(db, task, c, utcnow().date())
    result = provider.run(task, inputs)
    decided = decide_for(db, task, result.confidence, still_at_stake(c))
    outcome = decided.decision.outcome
    row = AiExecution(
        case_id=c.id,
        task=task,
        provider=provider.name,
        input_digests=digests,
        knowledge_versions=[k.ref() for k in inputs.knowledge],
        label=result.label[:80],
        output=None if outcome == "refused" else result.output,
        output_digest=proof.sha256_of(result.output),
        confidence=result.confidence,
        amount_at_stake=decided.inputs.amount_at_stake,
        decision=outcome,
        reasons=list(decided.decision.reasons),
        context=decided.context(),
        policy_id=decided.policy.id if decided.policy else None,
        policy_version=decided.policy.version if decided.policy else None,
        state=outcome,
        effect={},
        proof_digest="",
        requested_by_user_id=user_id,
    )
    db.add(row)
    db.flush()
    if outcome == "applied":
        row.effect = _apply(db, c, row, result, user_id)
    row.proof_digest = proof.keyed_digest(key, proof_payload(row, decided.policy))
    db.flush()
    return row


def get_execution(db: Session, execution_id: int) -> AiExecution:
    return get_by_id(db, AiExecution, execution_id, "Execution")


def policy_by_id(db: Session, policy_id: int | None) -> AutonomyPolicy | None:
    if policy_id is None:
        return None
    return db.scalar(select(AutonomyPolicy).where(AutonomyPolicy.id == policy_id))


def policy_view(p: AutonomyPolicy | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "id": p.id,
        "version": p.version,
        "task": p.task,
        "mode": p.mode,
        "minConfidence": p.min_confidence,
        "maxAmount": f"{p.max_amount:.2f}",
        "minAccuracy": p.min_accuracy,
        "minSamples": p.min_samples,
    }


def proof_payload(row: AiExecution, policy: AutonomyPolicy | None) -> dict[str, Any]:
    """What the proof digest covers (see `proof.py`)."""
    return {
        "executionId": row.id,
        "clientId": row.client_id,
        "caseId": row.case_id,
        "task": row.task,
        "provider": row.provider,
        "inputDigests": row.input_digests,
        "outputDigest": row.output_digest,
        "label": row.label,
        "confidence": row.confidence,
        "amountAtStake": f"{row.amount_at_stake:.2f}",
        "context": row.context,
        "decision": row.decision,
        "reasons": row.reasons,
        "state": row.state,
        "effect": row.effect,
        "policyVersion": row.policy_version,
        "policy": policy_view(policy),
        # only when knowledge was read, so proofs stored before knowledge existed still verify
        **({"knowledgeVersions": row.knowledge_versions} if row.knowledge_versions else {}),
    }


def executions_statement(task: str | None, case_id: int | None, state: str | None) -> Select[Any]:
    return where_given(
        select(AiExecution), (AiExecution.task, task), (AiExecution.case_id, case_id), (AiExecution.state, state)
    )


def audit_view(row: AiExecution) -> dict[str, Any]:
    """What the audit log may digest about an execution: never the output."""
    return {
        "task": row.task,
        "case_id": row.case_id,
        "decision": row.decision,
        "reasons": row.reasons,
        "policy_version": row.policy_version,
        "output_digest": row.output_digest,
        "proof_digest": row.proof_digest,
    }


# --- evaluations ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvaluationValues:
    actual: str
    execution_id: int | None = None
    task: str | None = None
    predicted: str | None = None
    confidence: float | None = None


def _from_execution(db: Session, given: EvaluationValues) -> tuple[str, str, float]:
    assert given.execution_id is not None
    if given.task is not None or given.predicted is not None or given.confidence is not None:
        raise InvalidInput("Invalid input: give either 'executionId' or 'task', 'predicted' and 'confidence'")
    row = get_execution(db, given.execution_id)
    return row.task, row.label, row.confidence


def record_evaluation(db: Session, given: EvaluationValues, *, user_id: int) -> AiEvaluation:
    """One labelled result: of an execution (its task, label and confidence), or given in full."""
    if given.execution_id is not None:
        task, predicted, confidence = _from_execution(db, given)
    elif given.task is None or given.predicted is None or given.confidence is None:
        raise InvalidInput("Invalid input: without 'executionId', 'task', 'predicted' and 'confidence' are required")
    else:
        task, predicted, confidence = given.task, given.predicted, given.confidence
    row = AiEvaluation(
        task=task,
        execution_id=given.execution_id,
        predicted=predicted,
        actual=given.actual,
        confidence=confidence,
        recorded_by_user_id=user_id,
    )
    try:
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:
        raise Conflict(f"Execution {given.execution_id} already has an evaluation") from None
    return row


def metrics_for(db: Session, task: str) -> metrics.Metrics:
    rows = db.execute(
        select(AiEvaluation.predicted, AiEvaluation.actual, AiEvaluation.confidence).where(AiEvaluation.task == task)
    ).all()
    return metrics.compute([metrics.Sample(p, a, c) for p, a, c in rows])
