"""policyProof.*: proof that an AI execution followed the policy in force, and its verification."""

from __future__ import annotations

from api.automation.ai_platform.proof import ALGORITHM
from api.automation.policy_proof import service
from api.automation.policy_proof.schemas import ExecutionRef, ProofOut, VerifyOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("policyProof")


@router.query("forAction")
def for_action(ctx: Context, input: ExecutionRef) -> ProofOut:
    """The proof of an aiPlatform execution: the policy version in force (and its thresholds), the
    inputs' digests, the decision and its reasons, and the keyed digest (HMAC-SHA256 under the
    installation's audit digest key) recorded over them when the execution was stored. Another
    client's execution is NOT_FOUND."""
    found = service.proof_for(ctx.db, input.execution_id, ctx.services.digest_key)
    p = found.payload
    return ProofOut.model_validate(
        {
            "execution_id": p["executionId"],
            "task": p["task"],
            "case_id": p["caseId"],
            "policy_version": p["policyVersion"],
            "policy": p["policy"],
            "input_digests": p["inputDigests"],
            "output_digest": p["outputDigest"],
            "decision": p["decision"],
            "reasons": p["reasons"],
            "context": p["context"],
            "payload": p,
            "algorithm": ALGORITHM,
            "digest": found.stored_digest,
        }
    )


@router.query("verify")
def verify(ctx: Context, input: ExecutionRef) -> VerifyOut:
    """Recompute the execution's proof digest from what is stored now and say whether it still matches
    the digest recorded at execution (false: the execution or its policy version was changed since)."""
    found = service.proof_for(ctx.db, input.execution_id, ctx.services.digest_key)
    return VerifyOut(
        execution_id=input.execution_id,
        matches=found.matches,
        stored_digest=found.stored_digest,
        recomputed_digest=found.recomputed_digest,
    )
