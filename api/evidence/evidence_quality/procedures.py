"""evidenceQuality.*: how complete and how strong a case's evidence is, and what is missing."""

from __future__ import annotations

from api.evidence.evidence_quality import scoring, service
from api.evidence.evidence_quality.schemas import CaseRef, GapOut, GapsOut, ScoreOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("evidenceQuality")


@router.query("score")
def score(ctx: Context, input: CaseRef) -> ScoreOut:
    """The case's evidence against what its denial category requires: required, recommended, present and
    missing document types, completeness (required present / required) and strength (0-1, see the field)."""
    evidence = service.case_evidence(ctx.db, ctx.services.case_category_of, input.case_id)
    result = scoring.score(evidence.requirement, evidence.documents)
    return ScoreOut(
        case_id=evidence.case_id,
        denial_category=evidence.denial_category,
        rule=evidence.rule,
        required=list(result.required),
        recommended=list(result.recommended),
        present=list(result.present),
        missing=list(result.missing),
        completeness=result.completeness,
        strength=result.strength,
        documents=len(evidence.documents),
    )


@router.query("gaps")
def gaps(ctx: Context, input: CaseRef) -> GapsOut:
    """What the case's evidence lacks, one sentence each: missing required types, required types held only
    without readable text, and missing recommended types."""
    evidence = service.case_evidence(ctx.db, ctx.services.case_category_of, input.case_id)
    found = scoring.gaps(evidence.requirement, evidence.documents)
    return GapsOut(
        case_id=evidence.case_id,
        denial_category=evidence.denial_category,
        rule=evidence.rule,
        gaps=[GapOut(doc_type=g.doc_type, kind=g.kind, message=g.message) for g in found],  # type: ignore[arg-type]
    )
