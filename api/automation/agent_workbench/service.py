"""The queue of AI executions waiting for a person, their review, and replays. Never commits.

`accept` and `reject` move a queued execution once (a conditional UPDATE: of two concurrent reviews
exactly one wins, the other is PRECONDITION_FAILED), record who and why, and re-key the execution's
proof digest, since its state (and, accepted, its effect) is part of the proof. Accepting applies the
stored result through aiPlatform's apply path: the same effect as an automatic application. A pause
(operationalControl) stops automatic application only, so a person may accept while the client or the
task is paused; a task disabled by aiGovernance is not accepted (its results are not to be used).

`replay` re-runs an execution's task on its case as it is now, under another policy version and/or
other knowledge versions, without storing or applying anything, and compares it with what was stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from sqlalchemy import Select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from api.automation.agent_workbench import compare
from api.automation.agent_workbench.lifecycle import EXECUTION_REVIEW
from api.automation.agent_workbench.models import AiExecutionReview
from api.automation.ai_governance import service as governance
from api.automation.ai_platform import proof
from api.automation.ai_platform import service as platform
from api.automation.ai_platform.models import AiExecution, AutonomyPolicy
from api.automation.ai_platform.providers import KNOWLEDGE_READ, Knowledge, provider_for
from api.automation.knowledge_control import service as knowledge
from api.core.errors import InvalidInput, NotFound, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.cases import service as cases
from api.infra.db.base import utcnow

ACCEPTED, REJECTED = "accepted", "rejected"


def queue_statement(task: str | None, case_id: int | None) -> Select[Any]:
    """The client's executions waiting for a person."""
    return platform.executions_statement(task, case_id, "queued")


# --- review -----------------------------------------------------------------------------------------


def _claim(db: Session, row: AiExecution, target: str) -> None:
    """queued -> target, only if still queued (conditional UPDATE)."""
    transition(EXECUTION_REVIEW, row.state, target)  # a reviewed/applied/refused one: PRECONDITION_FAILED
    stmt = (
        update(AiExecution)
        .where(AiExecution.id == row.id, AiExecution.state == "queued")
        .values(state=target)
        .execution_options(synchronize_session=False)
    )
    if cast(CursorResult[Any], db.execute(stmt)).rowcount != 1:
        raise PreconditionFailed(
            "The execution was reviewed by someone else just now; an execution is reviewed once",
            details={"currentState": "reviewed"},
        )
    db.refresh(row)


def _record(db: Session, row: AiExecution, decision: str, reason: str, user_id: int, key: bytes) -> AiExecutionReview:
    review = AiExecutionReview(execution_id=row.id, decision=decision, reason=reason, reviewer_user_id=user_id)
    db.add(review)
    row.proof_digest = proof.keyed_digest(key, platform.proof_payload(row, platform.policy_by_id(db, row.policy_id)))
    db.flush()
    return review


def accept(db: Session, execution_id: int, *, reason: str, user_id: int, key: bytes) -> AiExecutionReview:
    """A person applies a queued execution's result (allowed while automation is paused)."""
    row = platform.get_execution(db, execution_id)
    if row.state == "queued" and not governance.is_enabled(db, row.task):
        raise PreconditionFailed(f"The task '{row.task}' is disabled (aiGovernance); its results are not applied")
    _claim(db, row, ACCEPTED)
    row.effect = platform.apply_accepted(db, row, user_id)
    return _record(db, row, "accept", reason, user_id, key)


def reject(db: Session, execution_id: int, *, reason: str, user_id: int, key: bytes) -> AiExecutionReview:
    """A person turns a queued execution down; nothing is applied."""
    row = platform.get_execution(db, execution_id)
    _claim(db, row, REJECTED)
    return _record(db, row, "reject", reason, user_id, key)


def review_view(db: Session, review: AiExecutionReview) -> dict[str, Any]:
    row = platform.get_execution(db, review.execution_id)
    return {
        "execution_id": row.id,
        "decision": review.decision,
        "reason": review.reason,
        "reviewer_user_id": review.reviewer_user_id,
        "reviewed_at": review.created_at,
        "state": row.state,
        "effect": row.effect,
        "proof_digest": row.proof_digest,
    }


def audit_view(db: Session, review: AiExecutionReview) -> dict[str, Any]:
    """Ids, the decision and digests; never the reason's text or the output."""
    row = platform.get_execution(db, review.execution_id)
    return {**platform.audit_view(row), "review": review.decision, "state": row.state}


# --- replay -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    execution: AiExecution
    original: compare.Run
    replayed: compare.Run
    replayed_knowledge: tuple[Knowledge, ...]
    replayed_input_digests: dict[str, str]
    differences: compare.Differences


def _policy_version(db: Session, task: str, version: int | None) -> AutonomyPolicy | None:
    if version is None:
        return platform.current_policy(db, task)
    found = platform.policies_statement(task).where(AutonomyPolicy.version == version)
    row = db.scalar(found)
    if row is None:
        raise NotFound(f"Policy version {version} of task '{task}' not found")
    return row


def _knowledge(db: Session, task: str, active: Sequence[Knowledge], ids: Sequence[int]) -> tuple[Knowledge, ...]:
    """The active knowledge with the chosen versions in place of the active ones of their kinds. Any
    state may be chosen (a pending version can be tried before it is approved): nothing is applied."""
    reads = KNOWLEDGE_READ.get(task, ())
    chosen: dict[str, Knowledge] = {}
    for ident in dict.fromkeys(ids):
        k = platform.knowledge_input(knowledge.get(db, ident))
        if k.kind not in reads:
            reading = ", ".join(reads) or "no knowledge"
            raise InvalidInput(
                f"Invalid input: 'knowledgeVersionIds': task '{task}' does not read {k.kind} (it reads {reading})"
            )
        if k.kind in chosen:
            raise InvalidInput(f"Invalid input: 'knowledgeVersionIds' holds two {k.kind} versions; choose one")
        chosen[k.kind] = k
    by_kind = {k.kind: k for k in active} | chosen
    return tuple(by_kind[kind] for kind in reads if kind in by_kind)


def _stored_run(row: AiExecution) -> compare.Run:
    return compare.Run(row.label, row.confidence, row.decision, tuple(row.reasons), row.policy_version, row.output)


def replay(
    db: Session, execution_id: int, *, policy_version: int | None, knowledge_version_ids: Sequence[int], provider: str
) -> Replay:
    """Re-run the execution's task on its case now: under `policy_version` (omitted: the one in force) and
    with `knowledge_version_ids` replacing the active knowledge of their kinds. Stores and applies nothing."""
    row = platform.get_execution(db, execution_id)
    c = cases.get_case(db, row.case_id)
    inputs, digests = platform.case_inputs(db, row.task, c, utcnow().date())
    if knowledge_version_ids:
        inputs = replace(inputs, knowledge=_knowledge(db, row.task, inputs.knowledge, knowledge_version_ids))
        digests.pop("knowledge", None)
        if inputs.knowledge:
            digests["knowledge"] = proof.sha256_of([k.ref() for k in inputs.knowledge])
    result = provider_for(provider).run(row.task, inputs)
    policy = _policy_version(db, row.task, policy_version)
    decided = platform.decide_under(db, row.task, result.confidence, platform.still_at_stake(c), policy)
    outcome = decided.decision.outcome
    replayed = compare.Run(
        result.label[:80],
        result.confidence,
        outcome,
        decided.decision.reasons,
        policy.version if policy else None,
        None if outcome == "refused" else result.output,
    )
    original = _stored_run(row)
    return Replay(row, original, replayed, inputs.knowledge, digests, compare.compare(original, replayed))
