"""Scoring a case's evidence: its active documents against its denial category's requirement."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from api.core.errors import not_found
from api.denials.cases import service as cases
from api.evidence.evidence_control.service import documents_for_case
from api.evidence.evidence_quality.requirements import Requirement, requirement_for


@dataclass(frozen=True)
class CaseEvidence:
    case_id: int
    denial_category: str | None
    rule: str
    requirement: Requirement
    documents: list[tuple[str, int]]  # (doc_type, text_chars) of each active document


def case_evidence(db: Session, case_id: int) -> CaseEvidence:
    case = cases.find_case(db, case_id)
    if case is None:
        raise not_found("Case", case_id)
    rule, requirement = requirement_for(case.denial_category)
    documents = [(d.doc_type, d.text_chars) for d in documents_for_case(db, case.id)]
    return CaseEvidence(case.id, case.denial_category, rule, requirement, documents)
