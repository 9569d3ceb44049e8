"""Scoring a case's evidence: its active documents against its denial category's requirement."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from api.core.errors import not_found
from api.core.services import CaseCategoryOf
from api.evidence.evidence_control.service import documents_for_case
from api.evidence.evidence_quality.requirements import Requirement, requirement_for


@dataclass(frozen=True)
class CaseEvidence:
    case_id: int
    denial_category: str | None
    rule: str
    requirement: Requirement
    documents: list[tuple[str, int]]  # (doc_type, text_chars) of each active document


def case_evidence(db: Session, case_category_of: CaseCategoryOf, case_id: int) -> CaseEvidence:
    """The case's active documents against its denial category's requirement; the case and its category
    are asked through `case_category_of` (the services' port onto cases); NOT_FOUND without the case."""
    case = case_category_of(db, case_id)
    if case is None:
        raise not_found("Case", case_id)
    rule, requirement = requirement_for(case.denial_category)
    documents = [(d.doc_type, d.text_chars) for d in documents_for_case(db, case.id)]
    return CaseEvidence(case.id, case.denial_category, rule, requirement, documents)
