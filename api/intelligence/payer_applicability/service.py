"""payerApplicability on the operational DB: the facts of a claim, the rules that apply to it and why,
and its payer's facts in force.

The claim is read through claims' published service, its facts as the deadline scheduler reads them
(a working denial case's, else the claim's own: ``deadlines.service``), the limits by the very engine
the deadlines use, asked as payerRules.evaluate asks it (``payer_rules.service.evaluation_of``), the
payer's facts from payerKnowledge, each line's prior-authorization requirement and whether the claim's
authorizations cover it from priorAuthorization (``claim_status`` and ``missing_of``: what
``missing_authorizations`` answers, the flag submission preparation refuses on), and each line's frequency limit from payerRules
(``claim_frequency``: the limit in force on its date and the patient's earlier services in its window, from
claims). Each kind of rule has one finder in ``FINDERS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from sqlalchemy.orm import Session

from api.denials.cases import service as cases
from api.denials.claims import service as claims
from api.denials.deadlines import rules
from api.denials.deadlines import service as deadlines
from api.denials.prior_authorization import service as prior_authorization
from api.intelligence.payer_applicability import applicability
from api.intelligence.payer_knowledge import service as payer_knowledge
from api.intelligence.payer_rules import service as payer_rules


@dataclass(frozen=True, slots=True)
class Subject:
    """The claim a question is about, with the facts its rules are chosen by."""

    claim_id: int
    case_id: int | None  # the working denial case whose facts were used (None: the claim's own)
    facts: rules.CaseFacts
    kind: rules.PayerType
    as_of: date
    record: claims.ClaimRecord | None  # the claim and its lines, read once for every finder and the summary


def _limits(db: Session, subject: Subject) -> list[applicability.Applied]:
    found = payer_rules.evaluation_of(db, subject.case_id, subject.facts)
    return [applicability.from_scheduled(s, found.kind, subject.facts) for s in found.found]


def line_requirements(db: Session, claim_id: int) -> list[applicability.LineRequirement]:
    """Each line of the claim with the prior-authorization requirement priorAuthorization applies to it
    (its payer type from the claim, as the submission check finds it) and the verdict on its requests."""
    status = prior_authorization.claim_status(db, claim_id)
    missing = {m.line_number: m for m in prior_authorization.missing_of(status)}
    out = []
    for line in status.lines:
        gap = missing.get(line.line_number)
        out.append(
            applicability.LineRequirement(
                line_number=line.line_number,
                procedure_code=line.procedure_code,
                payer_type=status.payer_type,
                payer_type_basis=status.payer_type_basis,
                requirement=None if line.decision is None else line.decision.requirement,
                assumed=line.decision is not None and line.decision.assumed,
                covered_by=None if line.verdict is None else line.verdict.covered_by,
                missing=None if gap is None else gap.reason,
                explanation=None if gap is None else gap.explanation,
            )
        )
    return out


def _authorizations(db: Session, subject: Subject) -> list[applicability.Applied]:
    found = (applicability.from_line(line) for line in line_requirements(db, subject.claim_id))
    return [rule for rule in found if rule is not None]


def _frequency(db: Session, subject: Subject) -> list[applicability.Applied]:
    payer_type = subject.kind.payer_type
    found = payer_rules.claim_frequency(db, subject.record, payer_type=payer_type, payer_id=subject.facts.payer_id)
    return [applicability.from_frequency(line, payer_type) for line in found]


#: one finder per family of rules
FINDERS: dict[str, Callable[[Session, Subject], list[applicability.Applied]]] = {
    "limits": _limits,
    "authorizations": _authorizations,
    "frequency": _frequency,
}


@dataclass(frozen=True, slots=True)
class Answer:
    subject: Subject
    payer_key: str | None
    applied: list[applicability.Applied]
    payer_facts: list[payer_knowledge.Fact]
    lines: list[applicability.LineSummary]


def subject_of(db: Session, claim_id: int, as_of: date) -> Subject:
    """The client's claim (NOT_FOUND otherwise) and its facts: its newest working denial case's, the ones
    its deadlines were computed from, else the claim's own (no denial: no appeal limit)."""
    claim = claims.get_claim(db, claim_id)
    working = cases.working_cases_of_claims(db, [claim.claim_key])
    if working:
        case, facts = deadlines.case_with_facts(db, working[0].id)
        case_id: int | None = case.id
    else:
        facts = deadlines.claim_facts(
            db, claim_key=claim.claim_key, payer_id=claim.payer_id, service_date=claim.statement_from
        )
        case_id = None
    kind = rules.payer_type_of(facts.payer_class, facts.filing_indicator)
    return Subject(claim.id, case_id, facts, kind, as_of, claims.claim_record(db, claim.id))


def for_claim(db: Session, claim_id: int, as_of: date) -> Answer:
    """Which rules apply to the claim and why, and its payer's facts in force on ``as_of``."""
    subject = subject_of(db, claim_id, as_of)
    applied = [rule for finder in FINDERS.values() for rule in finder(db, subject)]
    payer_key = payer_knowledge.payer_key_of(subject.facts.payer_id) if subject.facts.payer_id else None
    facts = payer_knowledge.in_force(db, [payer_key], as_of) if payer_key else []
    record = subject.record
    numbered = [] if record is None else [(line.line_number, line.procedure_code) for line in record.lines]
    return Answer(subject, payer_key, applied, facts, applicability.line_summaries(numbered, applied))
