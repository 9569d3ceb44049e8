"""priorAuthorization on the operational database: requirements (the platform's reference list and the
client's own), which one applies to a claim's lines, authorization requests and their answers, and the
flag before submission (``missing_authorizations``, asked by claims through ``submission_blockers``).

Functions take the tenant-scoped session and plain values and never commit. Messages name fields,
line numbers, codes and ids: never the claim key, the patient or a date of service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.denials.cases import service as cases
from api.denials.cases.payer_classes import payer_class_of
from api.denials.claims import service as claims
from api.denials.claims.lifecycle import FINAL_STATES
from api.denials.deadlines.rules import PayerType, payer_type_of
from api.denials.deadlines.service import client_today
from api.denials.prior_authorization import coverage
from api.denials.prior_authorization import requirements as rules
from api.denials.prior_authorization.defaults import platform_requirements
from api.denials.prior_authorization.lifecycle import AUTHORIZATION
from api.denials.prior_authorization.models import PriorAuthorization, PriorAuthRequirement
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.money.reconciliation import service as reconciliation

#: units are stored with three places (Numeric(12, 3)); answered the same before and after a reload
THOUSANDTHS = Decimal("0.001")

# The requirement type the functions below answer, named here for other contexts (payer rules).
Requirement = rules.Requirement
# A CPT/HCPCS code range and a claim line's code as a code: the one parsing of codes, named here for other
# contexts (payer rules' frequency limits are keyed by the same codes and ranges).
CodeRange = rules.CodeRange
line_code = rules.line_code

# --- requirements ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RequirementValues:
    """A client's requirement (or exemption, `requires_authorization` False) as given: `procedure_code` a
    code or a range (``70551-70553``); payer id, plan, place of service and revenue code ``*`` for any."""

    payer_type: str
    procedure_code: str
    effective_from: date
    source: str
    payer_id: str = rules.ANY
    plan: str = rules.ANY
    place_of_service: str = rules.ANY
    revenue_code: str = rules.ANY
    requires_authorization: bool = True
    effective_to: date | None = None


def _invalid(error: rules.RequirementError) -> InvalidInput:
    return InvalidInput(f"Invalid input: {error}")


def parse_code(text: str, field: str = "procedureCode") -> str:
    """A CPT/HCPCS code, upper-cased; INVALID_INPUT saying what a code looks like otherwise."""
    try:
        return rules.parse_code(text, field)
    except rules.RequirementError as error:
        raise _invalid(error) from None


def parse_code_range(text: str, field: str = "procedureCodes") -> rules.CodeRange:
    """A CPT/HCPCS code or a range of one kind (``70551-70553``); INVALID_INPUT naming `field` otherwise."""
    try:
        return rules.parse_code_range(text, field)
    except rules.RequirementError as error:
        raise _invalid(error) from None


def checked_requirement(values: RequirementValues) -> rules.Requirement:
    """The values as a requirement (upper-cased payer id and plan, a 4-digit revenue code), or
    INVALID_INPUT naming the field (bad code or range, POS, revenue code, from > to, no source)."""
    try:
        return rules.check(
            rules.Requirement(
                payer_type=values.payer_type,
                payer_id=values.payer_id.strip().upper(),
                plan=values.plan.strip().upper(),
                codes=rules.parse_code_range(values.procedure_code, "procedureCodes"),
                place_of_service=rules.parse_place_of_service(values.place_of_service),
                revenue_code=rules.parse_revenue_code(values.revenue_code),
                requires_authorization=values.requires_authorization,
                effective_from=values.effective_from,
                effective_to=values.effective_to,
                source=values.source.strip(),
            )
        )
    except rules.RequirementError as error:
        raise _invalid(error) from None


def requirement_state(row: PriorAuthRequirement) -> dict[str, Any]:
    """The row as the audit records it."""
    return {
        "payer_type": row.payer_type,
        "payer_id": row.payer_id,
        "plan": row.plan,
        "codes": str(rules.CodeRange(row.code_low, row.code_high)),
        "place_of_service": row.place_of_service,
        "revenue_code": row.revenue_code,
        "requires_authorization": row.requires_authorization,
        "effective_from": row.effective_from.isoformat(),
        "effective_to": row.effective_to.isoformat() if row.effective_to else None,
        "source": row.source,
        "version": row.version,
    }


def upsert_requirement(
    db: Session, values: RequirementValues, *, user_id: int
) -> tuple[PriorAuthRequirement, dict[str, Any] | None]:
    """Insert the client's requirement for its scope (payer type, payer id, plan, codes, place of service,
    revenue code) from `effective_from`, or update the one with that scope and date (its version goes up
    by one); answers the row and its audit state before (None: inserted). Its one caller is payer rules'
    approval (payerRules.decide of an `authorization` change): a client's requirement changes only there."""
    req = checked_requirement(values)
    scope = {
        "payer_type": req.payer_type,
        "payer_id": req.payer_id,
        "plan": req.plan,
        "code_low": req.codes.low,
        "code_high": req.codes.high,
        "place_of_service": req.place_of_service,
        "revenue_code": req.revenue_code,
        "effective_from": req.effective_from,
    }
    row = db.scalar(select(PriorAuthRequirement).filter_by(**scope))
    before = requirement_state(row) if row is not None else None
    if row is None:
        row = PriorAuthRequirement(**scope, version=0)
        db.add(row)
    row.requires_authorization, row.effective_to, row.source = (
        req.requires_authorization,
        req.effective_to,
        req.source,
    )
    row.version, row.updated_by = (row.version or 0) + 1, user_id
    db.flush()
    return row, before


def requirement_view(req: rules.Requirement) -> dict[str, Any]:
    """A requirement as the wire shows it (priorAuthorization.requirements, and payerRules' proposals and
    decisions of kind authorization): plain values under its output's field names."""
    return {
        "id": req.requirement_id,
        "origin": req.origin,
        "reference": req.reference,
        "payer_type": req.payer_type,
        "payer_id": req.payer_id,
        "plan": req.plan,
        "procedure_codes": str(req.codes),
        "place_of_service": req.place_of_service,
        "revenue_code": req.revenue_code,
        "requires_authorization": req.requires_authorization,
        "effective_from": req.effective_from,
        "effective_to": req.effective_to,
        "source": req.source,
        "version": req.version,
    }


def as_requirement(row: PriorAuthRequirement) -> rules.Requirement:
    return rules.Requirement(
        payer_type=row.payer_type,
        payer_id=row.payer_id,
        plan=row.plan,
        codes=rules.CodeRange(row.code_low, row.code_high),
        place_of_service=row.place_of_service,
        revenue_code=row.revenue_code,
        requires_authorization=row.requires_authorization,
        effective_from=row.effective_from,
        effective_to=row.effective_to,
        source=row.source,
        version=row.version,
        requirement_id=row.id,
    )


def all_requirements(db: Session) -> tuple[rules.Requirement, ...]:
    """The platform's reference requirements followed by the session client's own."""
    own = db.scalars(select(PriorAuthRequirement).order_by(PriorAuthRequirement.id))
    return (*platform_requirements(), *(as_requirement(r) for r in own))


def requirement_list_statement(
    *, payer_type: str | None = None, payer_id: str | None = None, procedure_code: str | None = None
) -> Select[Any]:
    """The client's requirements by payer type, payer id and a code they cover (each when given); unordered."""
    stmt = where_given(
        select(PriorAuthRequirement),
        (PriorAuthRequirement.payer_type, payer_type),
        (PriorAuthRequirement.payer_id, payer_id.strip().upper() if payer_id else None),
    )
    if procedure_code is not None:
        stmt = stmt.where(
            PriorAuthRequirement.code_low <= procedure_code, PriorAuthRequirement.code_high >= procedure_code
        )
    return stmt


def platform_listed(*, payer_type: str | None = None, procedure_code: str | None = None) -> list[rules.Requirement]:
    """The platform's reference requirements, filtered like the client's."""
    return [
        r
        for r in platform_requirements()
        if (payer_type is None or r.payer_type == payer_type)
        and (procedure_code is None or r.codes.contains(procedure_code))
    ]


def requirement_for(db: Session, facts: rules.ServiceFacts) -> rules.Decision | None:
    """The requirement that applies to a described service (financialClearance asks before the service)."""
    return rules.requirement_for(facts, all_requirements(db))


# --- a claim's payer and lines -------------------------------------------------------------------------


def _payer_of(db: Session, claim: claims.ClaimRow) -> tuple[PayerType, str | None]:
    """The claim's payer type and payer id, as the deadlines find a case's: the filing indicator (SBR09),
    the tenant's payer-id alias class (the indicator counts only when it agrees), the indicator's class."""
    indicator = claim.filing_indicator
    payer_class = payer_class_of(indicator)
    payer_id = claim.payer_id
    key = (payer_id or "").strip().upper()
    if key:
        canonical, alias_class = reconciliation.payer_id_aliases(db, [key]).get(key, (None, None))
        if alias_class:
            indicator = indicator if payer_class_of(indicator) == alias_class else None
            payer_class = alias_class
        payer_id = canonical or payer_id
    return payer_type_of(payer_class, indicator), payer_id


@dataclass(frozen=True, slots=True)
class LineStatus:
    """One claim line: the requirement that applies (None: none) and, when it requires an authorization,
    the verdict (covered by which request, or why not)."""

    line_number: int
    procedure_code: str | None
    units: Decimal
    decision: rules.Decision | None
    verdict: coverage.Verdict | None


@dataclass(frozen=True, slots=True)
class ClaimStatus:
    claim_id: int
    payer_type: str | None
    payer_type_assumed: bool
    payer_type_basis: str
    lines: list[LineStatus]
    authorizations: list[PriorAuthorization]

    @property
    def clear(self) -> bool:
        return all(line.verdict is None or line.verdict.missing is None for line in self.lines)


def _authorizations_of(db: Session, claim_id: int) -> list[PriorAuthorization]:
    return list(
        db.scalars(
            select(PriorAuthorization).where(PriorAuthorization.claim_id == claim_id).order_by(PriorAuthorization.id)
        )
    )


def _as_rule(row: PriorAuthorization) -> coverage.Authorization:
    return coverage.Authorization(
        id=row.id,
        state=row.state,
        procedure_code=row.procedure_code,
        line_number=row.line_number,
        approved_units=row.approved_units,
        valid_from=row.valid_from,
        valid_to=row.valid_to,
    )


def _line_facts(
    line: claims.ClaimLineRow, claim: claims.ClaimRow, payer_type: str | None, payer_id: str | None
) -> rules.ServiceFacts | None:
    """What a stored claim line is matched on (None: undated, nothing can match): its code and revenue code,
    its date (else the claim's from date), the claim's plan, and its place of service, the line's own else
    the claim's (837P: SV105 is given only where the line's place differs from CLM05-1, 005010X222A1
    2400 SV105). The one mapping from a stored claim to requirement facts: the claim status, the submission
    blocker, payerApplicability and financialClearance all read it through ``claim_status``."""
    served = line.service_date_from or claim.statement_from
    if served is None:
        return None
    return rules.ServiceFacts(
        payer_type=payer_type,
        procedure_code=rules.line_code(line.procedure_code),
        service_date=served,
        payer_id=payer_id,
        plan=claim.plan,
        place_of_service=line.place_of_service or claim.place_of_service,
        revenue_code=line.revenue_code,
    )


def _decide(
    line: claims.ClaimLineRow,
    claim: claims.ClaimRow,
    payer_type: str | None,
    payer_id: str | None,
    known: tuple[rules.Requirement, ...],
) -> tuple[rules.Decision | None, coverage.Line | None]:
    """The requirement that applies to one line (None: undated, nothing can match) and, when it requires
    an authorization, the span of service that an approved request has to cover."""
    facts = _line_facts(line, claim, payer_type, payer_id)
    if facts is None:
        return None, None
    served, code = facts.service_date, facts.procedure_code
    decision = rules.requirement_for(facts, known)
    if decision is None or not decision.required or code is None:
        return decision, None
    through = max(line.service_date_to or served, served)
    return decision, coverage.Line(line.line_number, code, line.units or Decimal(1), served, through)


def _status(db: Session, record: claims.ClaimRecord) -> ClaimStatus:
    claim = record.claim
    kind, payer_id = _payer_of(db, claim)
    known = all_requirements(db)
    decided = [(line, *_decide(line, claim, kind.payer_type, payer_id, known)) for line in record.lines]
    rows = _authorizations_of(db, claim.id)
    found = coverage.verdicts([n for _, _, n in decided if n is not None], [_as_rule(r) for r in rows])
    by_line = {v.line_number: v for v in found}
    lines = [
        LineStatus(
            line.line_number,
            line.procedure_code,
            line.units or Decimal(1),
            decision,
            by_line.get(line.line_number) if needing is not None else None,
        )
        for line, decision, needing in decided
    ]
    return ClaimStatus(claim.id, kind.payer_type, kind.assumed, kind.basis, lines, rows)


def claim_status(db: Session, claim_id: int) -> ClaimStatus:
    """Each line of the client's claim with the requirement that applies and whether an approved request
    covers it; NOT_FOUND when the claim is not the client's."""
    claims.get_claim(db, claim_id)
    record = claims.claim_record(db, claim_id)
    assert record is not None  # get_claim found it in this session
    return _status(db, record)


@dataclass(frozen=True, slots=True)
class MissingAuthorization:
    """A line that needs a prior authorization the claim does not have, as plain values."""

    line_number: int
    procedure_code: str
    requirement: str  # the requirement's reference (platform/... or prior_auth_requirements/<id>)
    source: str  # its citation
    assumed: bool  # the payer type was unknown: the requirement of a common payer type is assumed
    reason: coverage.Missing
    authorization_id: int | None
    explanation: str


_EXPLAINED: dict[str, str] = {
    "none_requested": "no authorization was requested (priorAuthorization.request)",
    "pending": "authorization request {id} is awaiting the payer's decision",
    "denied": "authorization request {id} was denied by the payer",
    "expired": "authorization {id} expired before the line's service dates",
    "dates_not_covered": "authorization {id}'s valid dates do not cover the line's service dates",
    "units_exceeded": "authorization {id} has fewer approved units left than the line bills",
}


def missing_of(status: ClaimStatus) -> list[MissingAuthorization]:
    out = []
    for line in status.lines:
        if line.verdict is None or line.verdict.missing is None or line.decision is None:
            continue
        req = line.decision.requirement
        reason = line.verdict.missing
        out.append(
            MissingAuthorization(
                line_number=line.line_number,
                procedure_code=str(rules.line_code(line.procedure_code)),
                requirement=req.reference,
                source=req.source,
                assumed=line.decision.assumed,
                reason=reason,
                authorization_id=line.verdict.authorization_id,
                explanation=_EXPLAINED[reason].format(id=line.verdict.authorization_id),
            )
        )
    return out


def missing_authorizations(db: Session, claim_id: int) -> list[MissingAuthorization]:
    """The claim's lines that need a prior authorization no approved request covers (code, service
    dates and units), in line order, each with the requirement that applies, its source and why it is
    not covered; NOT_FOUND when the claim is not the client's."""
    return missing_of(claim_status(db, claim_id))


def submission_blockers(db: Session, claim_id: int) -> list[str]:
    """`Services.submission_blockers` listener: one sentence per missing authorization (line, code,
    why, the source), no PHI. A claim not of the client answers nothing (claims says NOT_FOUND)."""
    record = claims.claim_record(db, claim_id)
    if record is None:
        return []
    return [
        f"line {m.line_number} ({m.procedure_code}) needs a prior authorization: {m.explanation} [{m.source}]"
        for m in missing_of(_status(db, record))
    ]


# --- authorization requests ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewRequest:
    """A request for one procedure code of a claim: by line (`line_number`: its code, units and dates
    unless given) or by code (`procedure_code`, with the units and dates given or the claim's)."""

    claim_id: int
    line_number: int | None = None
    procedure_code: str | None = None
    units: Decimal | None = None
    service_from: date | None = None
    service_to: date | None = None
    case_id: int | None = None
    payer_reference: str | None = None


def get(db: Session, authorization_id: int, *, for_update: bool = False) -> PriorAuthorization:
    """The client's request, else NOT_FOUND."""
    return get_by_id(db, PriorAuthorization, authorization_id, "Prior authorization", for_update=for_update)


def _line_of(record: claims.ClaimRecord, number: int) -> Any:
    for line in record.lines:
        if line.line_number == number:
            return line
    raise InvalidInput(f"Invalid input: 'lineNumber' {number} is not a line of this claim")


def _code(given: NewRequest, line: Any) -> str:
    try:
        code = rules.parse_code(given.procedure_code) if given.procedure_code is not None else None
    except rules.RequirementError as error:
        raise _invalid(error) from None
    if line is None:
        if code is None:
            raise InvalidInput("Invalid input: give 'lineNumber' or 'procedureCode'")
        return code
    of_line = rules.line_code(line.procedure_code)
    if of_line is None:
        raise InvalidInput(f"Invalid input: line {line.line_number} has no CPT/HCPCS procedure code to authorize")
    if code is not None and code != of_line:
        raise InvalidInput(f"Invalid input: 'procedureCode' {code} is not the code of line {line.line_number}")
    return of_line


def _units(given: NewRequest, line: Any) -> Decimal:
    """The units asked for, else the line's, else one; refused when not positive."""
    units = given.units if given.units is not None else (line.units if line is not None and line.units else Decimal(1))
    if units <= 0:
        raise InvalidInput("Invalid input: 'units' must be more than 0")
    return units.quantize(THOUSANDTHS)


def _span(given: NewRequest, line: Any, claim: claims.ClaimRow) -> tuple[date, date]:
    """The dates asked for, else the line's (its through date defaulting to its from date), else the
    claim's statement period; refused when absent or reversed."""
    if line is not None:
        start = given.service_from or line.service_date_from
        end = given.service_to or line.service_date_to or line.service_date_from
    else:
        start = given.service_from or claim.statement_from
        end = given.service_to or claim.statement_to
    if start is None or end is None:
        raise InvalidInput("Invalid input: 'serviceFrom' and 'serviceTo' are needed (the claim has no dates)")
    if end < start:
        raise InvalidInput("Invalid input: 'serviceTo' is before 'serviceFrom'")
    return start, end


def request(db: Session, given: NewRequest, *, user_id: int) -> PriorAuthorization:
    """A new request (`requested`) for a claim's code; NOT_FOUND for a claim or case not of the client,
    PRECONDITION_FAILED on a closed or withdrawn claim, INVALID_INPUT naming the field otherwise."""
    claims.get_claim(db, given.claim_id)
    record = claims.claim_record(db, given.claim_id)
    assert record is not None
    if record.claim.state in FINAL_STATES:
        raise PreconditionFailed(f"The claim is '{record.claim.state}'; requesting an authorization is not possible")
    if given.case_id is not None:
        cases.get_case(db, given.case_id)
    line = _line_of(record, given.line_number) if given.line_number is not None else None
    code = _code(given, line)
    units = _units(given, line)
    start, end = _span(given, line, record.claim)
    row = PriorAuthorization(
        claim_id=record.claim.id,
        case_id=given.case_id,
        line_number=given.line_number,
        procedure_code=code,
        requested_units=units,
        service_from=start,
        service_to=end,
        state="requested",
        state_changed_at=utcnow(),
        payer_reference=given.payer_reference,
        requested_by=user_id,
    )
    db.add(row)
    db.flush()
    return row


Outcome = Literal["pending", "approved", "denied", "withdrawn"]


@dataclass(frozen=True, slots=True)
class Answer:
    """The payer's answer (or the hospital's withdrawal): an approval needs its number, units and dates;
    a denial and a withdrawal their reason."""

    outcome: Outcome
    authorization_number: str | None = None
    approved_units: Decimal | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    reason: str | None = None
    payer_reference: str | None = None


def _check_answer(answer: Answer) -> None:
    if answer.outcome == "approved":
        missing = [
            name
            for name, value in (
                ("authorizationNumber", answer.authorization_number),
                ("approvedUnits", answer.approved_units),
                ("validFrom", answer.valid_from),
                ("validTo", answer.valid_to),
            )
            if value is None
        ]
        if missing:
            raise InvalidInput(f"Invalid input: an approval needs {', '.join(repr(m) for m in missing)}")
        assert answer.approved_units is not None and answer.valid_from is not None and answer.valid_to is not None
        if answer.approved_units <= 0:
            raise InvalidInput("Invalid input: 'approvedUnits' must be more than 0")
        if answer.valid_to < answer.valid_from:
            raise InvalidInput("Invalid input: 'validTo' is before 'validFrom'")
    elif answer.outcome in ("denied", "withdrawn") and not (answer.reason or "").strip():
        raise InvalidInput(f"Invalid input: 'reason' is required when the request is {answer.outcome}")


def record(db: Session, authorization_id: int, answer: Answer, *, user_id: int) -> tuple[PriorAuthorization, str]:
    """Move the request along its lifecycle with the answer's values; (the request, its state before).
    PRECONDITION_FAILED naming the state for a move the lifecycle does not allow."""
    _check_answer(answer)
    row = get(db, authorization_id, for_update=True)
    before = row.state
    row.state = transition(AUTHORIZATION, before, answer.outcome)
    row.state_changed_at = utcnow()
    if answer.payer_reference is not None:
        row.payer_reference = answer.payer_reference
    if answer.outcome == "approved":
        assert answer.approved_units is not None  # _check_answer said so
        row.authorization_number, row.approved_units = (
            answer.authorization_number,
            answer.approved_units.quantize(THOUSANDTHS),
        )
        row.valid_from, row.valid_to = answer.valid_from, answer.valid_to
    if answer.outcome in ("approved", "denied"):
        row.decided_by = user_id
    if answer.reason is not None:
        row.decision_reason = answer.reason
    db.flush()
    return row, before


def list_statement(*, claim_id: int | None = None, state: str | None = None) -> Select[Any]:
    """Requests by claim and stored state (each when given); unordered, for paging."""
    return where_given(
        select(PriorAuthorization), (PriorAuthorization.claim_id, claim_id), (PriorAuthorization.state, state)
    )


def shown_state(row: PriorAuthorization, today: date) -> str:
    """The state as answered: an approval whose valid-to date has passed (in the client's today) is
    ``expired`` (decided at read; see ``coverage.py``), anything else its stored state."""
    if row.state == "approved" and row.valid_to is not None and row.valid_to < today:
        return "expired"
    return row.state


def today(db: Session) -> date:
    """Today in the client's time zone (an authorization's dates are dates where the hospital is)."""
    return client_today(db)


def require_claim(db: Session, claim_id: int) -> None:
    """NOT_FOUND unless the claim is the client's (a list filtered by another client's claim says so)."""
    claims.get_claim(db, claim_id)


@dataclass(frozen=True, slots=True)
class ServedLine:
    """A claim line as coverage reads it: its code, units and dates of service."""

    claim_id: int
    line_number: int
    procedure_code: str
    units: Decimal
    served_from: date
    served_to: date


def covering_authorizations(db: Session, lines: Sequence[ServedLine]) -> dict[tuple[int, int], int | None]:
    """For each (claim id, line number), the approved request of the claim that covers the line today
    (``coverage.verdicts``: its code, dates and units; what missing_authorizations reads), None when none does."""
    by_claim: dict[int, list[ServedLine]] = {}
    for line in lines:
        by_claim.setdefault(line.claim_id, []).append(line)
    rows = db.scalars(select(PriorAuthorization).where(PriorAuthorization.claim_id.in_(list(by_claim))))
    auths: dict[int, list[coverage.Authorization]] = {}
    for row in rows:
        auths.setdefault(row.claim_id, []).append(_as_rule(row))
    out: dict[tuple[int, int], int | None] = {}
    for claim_id, served in by_claim.items():
        wanted = [coverage.Line(s.line_number, s.procedure_code, s.units, s.served_from, s.served_to) for s in served]
        for verdict in coverage.verdicts(wanted, sorted(auths.get(claim_id, []), key=lambda a: a.id)):
            out[(claim_id, verdict.line_number)] = verdict.covered_by
    return out
