"""Why a rule applies to a claim (pure): its scope, the date it is in force from, its source, and the claim
facts that selected it.

An applied rule is kind-neutral (kind, scope, source, selectors, why) with the kind's own detail beside
it: the appeal and timely-filing limits of the deadline engine (``api.denials.deadlines.rules``) and the
prior-authorization requirement of each claim line (priorAuthorization's choice, with whether the claim's
authorizations cover it) and the frequency limit of each claim line (payerRules' choice, with the patient's
earlier services counted in its window); each kind is found by its own finder (the service's ``FINDERS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from api.denials.deadlines import rules
from api.denials.prior_authorization.service import Requirement
from api.intelligence.payer_rules.service import LineFrequency

#: the kinds this module builds (the limits); others join through the service's finders
APPEAL_LIMIT, TIMELY_FILING_LIMIT = "appeal_limit", "timely_filing_limit"
AUTHORIZATION_REQUIREMENT = "authorization_requirement"
FREQUENCY_LIMIT = "frequency_limit"


@dataclass(frozen=True, slots=True)
class Selector:
    """A claim fact that selected a rule (no PHI: codes, payer ids, dates of notice and service)."""

    fact: str
    value: str


@dataclass(frozen=True, slots=True)
class Scope:
    origin: str  # client (the client's own rule) | platform (the reference seed)
    breadth: str  # payer_specific (one payer id) | type_wide (every payer of the type)
    payer_type: str
    payer_id: str  # "*" for type-wide


@dataclass(frozen=True, slots=True)
class LimitDetail:
    level: str
    due_on: date
    basis_date: date
    days: int
    day_count: str
    roll_forward: bool
    receipt_days: int


@dataclass(frozen=True, slots=True)
class AuthorizationDetail:
    """The requirement a claim line met and whether the claim's authorizations cover it."""

    line_number: int
    procedure_code: str
    procedure_codes: str  # the requirement's code or range
    plan: str
    place_of_service: str
    revenue_code: str
    requires_authorization: bool  # False: an exemption (nothing to cover)
    effective_to: date | None
    version: int
    assumed: bool  # the payer type was unknown: a common payer type's requirement is assumed
    covered: bool | None  # None: nothing to cover (an exemption)
    covered_by: int | None  # the approved request covering the line
    missing: str | None  # why none covers it (none_requested, pending, denied, expired, ...)
    explanation: str | None


@dataclass(frozen=True, slots=True)
class EarlierOut:
    """An earlier service counted against a line: its date, units and claim (no patient data)."""

    service_date: date
    units: Decimal
    claim_key: str


@dataclass(frozen=True, slots=True)
class FrequencyDetail:
    """The frequency limit a claim line met, its window and whether the line exceeds it."""

    line_number: int
    procedure_code: str
    procedure_codes: str  # the limit's code or range
    plan: str
    max_units: int
    period: str
    period_length: int | None
    effective_to: date | None
    version: int
    assumed: bool  # the payer type was unknown: a common payer type's limit is assumed
    window_from: date | None  # None: a lifetime
    window_to: date
    used: Decimal  # the units of the earlier services in the window
    units: Decimal  # the line's own
    exceeds: bool
    earlier: tuple[EarlierOut, ...]


@dataclass(frozen=True, slots=True)
class Applied:
    kind: str
    scope: Scope
    effective_from: date | None  # None: a platform default, in force for every date
    source: str
    reference: str
    selected_by: tuple[Selector, ...]
    why: str
    limit: LimitDetail | None = None
    authorization: AuthorizationDetail | None = None
    frequency: FrequencyDetail | None = None


def _payer_selectors(kind: rules.PayerType, facts: rules.CaseFacts) -> list[Selector]:
    out = []
    if facts.filing_indicator:
        out.append(Selector("filing_indicator", facts.filing_indicator))
    if facts.payer_class:
        out.append(Selector("payer_class", facts.payer_class))
    if kind.assumed:
        out.append(Selector("payer_type", "unknown: the shortest common window is assumed"))
    return out


def _why(s: rules.Scheduled, kind: rules.PayerType, facts: rules.CaseFacts) -> str:
    rule = s.deadline.rule
    scope = f"{s.payer_type} payer {rule.plan}" if rule.plan != "*" else f"every {s.payer_type} payer"
    whose = "the client's rule" if rule.rule_id is not None else "the platform default"
    if s.source == rules.EXPORT_SOURCE:
        return f"The hospital's export stated the appeal deadline ({kind.basis})"
    if s.deadline.rule.kind == "timely_filing" and facts.soft_denial:
        return f"A soft denial is fixed and resubmitted: {whose} for {scope}, timely filing ({kind.basis})"
    return f"{whose[0].upper()}{whose[1:]} for {scope}, {rule.level} ({kind.basis})"


def from_scheduled(s: rules.Scheduled, kind: rules.PayerType, facts: rules.CaseFacts) -> Applied:
    """An applied limit from the deadline engine's answer (``rules.case_deadlines``) for these facts."""
    rule = s.deadline.rule
    selectors = _payer_selectors(kind, facts)
    if rule.plan != "*":
        selectors.append(Selector("payer_id", rule.plan))
    if s.source == rules.EXPORT_SOURCE and facts.stated_appeal_due is not None:
        selectors.append(Selector("stated_appeal_deadline", facts.stated_appeal_due.isoformat()))
    elif rule.kind == "timely_filing":
        selectors.append(Selector("service_date", s.deadline.basis_date.isoformat()))
        if facts.soft_denial:
            selectors.append(Selector("soft_denial", "true"))
    else:
        selectors.append(Selector("notice_date", s.deadline.basis_date.isoformat()))
    return Applied(
        kind=TIMELY_FILING_LIMIT if rule.kind == "timely_filing" else APPEAL_LIMIT,
        scope=_scope(rule.origin, s.payer_type, rule.plan),
        effective_from=None if rule.effective_from == rules.ALWAYS else rule.effective_from,
        source=s.source,
        reference=rule.reference,
        selected_by=tuple(selectors),
        why=_why(s, kind, facts),
        limit=LimitDetail(
            level=rule.level,
            due_on=s.deadline.due_on,
            basis_date=s.deadline.basis_date,
            days=rule.days,
            day_count=rule.day_count,
            roll_forward=rule.roll_forward,
            receipt_days=rule.receipt_days,
        ),
    )


def _scope(origin: str, payer_type: str, payer_id: str) -> Scope:
    """Whose rule it is and how wide: every payer of the type (payer id ``*``) or one payer."""
    breadth = "type_wide" if payer_id == "*" else "payer_specific"
    return Scope(origin=origin, breadth=breadth, payer_type=payer_type, payer_id=payer_id)


def _whose_and_scope(noun: str, client_rule: bool, payer_type: str, payer_id: str) -> tuple[str, str]:
    """The opening words of a line rule's ``why``: "The client's <noun>" and "every <type> payer"."""
    whose = f"The client's {noun}" if client_rule else f"The platform's {noun}"
    return whose, f"{payer_type} payer {payer_id}" if payer_id != "*" else f"every {payer_type} payer"


def _line_selectors(
    line_number: int, code: str, served: date | None, assumed: bool, payer_type: str | None, noun: str
) -> list[Selector]:
    """The line a line rule was chosen for: its number, code, date of service (when the rule counts by it)
    and payer type, or the word that a common type's <noun> was assumed for an unknown payer."""
    selectors = [Selector("line_number", str(line_number)), Selector("procedure_code", code)]
    if served is not None:
        selectors.append(Selector("service_date", served.isoformat()))
    if assumed:
        selectors.append(Selector("payer_type", f"unknown: a common payer type's {noun} is assumed"))
    elif payer_type:
        selectors.append(Selector("payer_type", payer_type))
    return selectors


def _narrower(*facts: tuple[str, str]) -> list[Selector]:
    """The facts a narrower rule asked for (a value other than ``*``)."""
    return [Selector(fact, value) for fact, value in facts if value != "*"]


@dataclass(frozen=True, slots=True)
class LineRequirement:
    """What priorAuthorization decided for one claim line, as plain values (its ``claim_status`` and
    ``missing_of``): the requirement that applies (None: none) and the verdict on the claim's requests."""

    line_number: int
    procedure_code: str | None
    payer_type: str | None  # the claim's payer type as priorAuthorization found it
    payer_type_basis: str
    requirement: Requirement | None
    assumed: bool
    covered_by: int | None
    missing: str | None
    explanation: str | None


def from_line(line: LineRequirement) -> Applied | None:
    """An applied authorization requirement for a claim line (None: no requirement applies to it)."""
    req = line.requirement
    if req is None:
        return None
    code = line.procedure_code or ""
    selectors = [
        *_line_selectors(line.line_number, code, None, line.assumed, line.payer_type, "requirement"),
        # the claim facts a narrower requirement asked for (the claim's plan, the line's place of service)
        *_narrower(
            ("payer_id", req.payer_id),
            ("plan", req.plan),
            ("place_of_service", req.place_of_service),
            ("revenue_code", req.revenue_code),
        ),
    ]
    whose, scope = _whose_and_scope("requirement", req.requirement_id is not None, req.payer_type, req.payer_id)
    what = "needs a prior authorization" if req.requires_authorization else "is exempt from prior authorization"
    if not req.requires_authorization:
        state = "nothing to cover"
    elif line.covered_by is not None:
        state = f"covered by authorization {line.covered_by}"
    else:
        state = f"not covered: {line.explanation or line.missing}"
    return Applied(
        kind=AUTHORIZATION_REQUIREMENT,
        scope=_scope(req.origin, req.payer_type, req.payer_id),
        effective_from=req.effective_from,
        source=req.source,
        reference=req.reference,
        selected_by=tuple(selectors),
        why=f"{whose} for {scope}: line {line.line_number} ({code}, in {req.codes}) {what} "
        f"({line.payer_type_basis}); {state}",
        authorization=AuthorizationDetail(
            line_number=line.line_number,
            procedure_code=code,
            procedure_codes=str(req.codes),
            plan=req.plan,
            place_of_service=req.place_of_service,
            revenue_code=req.revenue_code,
            requires_authorization=req.requires_authorization,
            effective_to=req.effective_to,
            version=req.version,
            assumed=line.assumed,
            covered=None if not req.requires_authorization else line.covered_by is not None,
            covered_by=line.covered_by,
            missing=line.missing,
            explanation=line.explanation,
        ),
    )


def from_frequency(line: LineFrequency, payer_type: str | None) -> Applied:
    """An applied frequency limit for a claim line: why, in dates and units only (never the patient)."""
    verdict = line.verdict
    lim = verdict.limit
    selectors = [
        *_line_selectors(line.line_number, line.procedure_code, line.service_date, line.assumed, payer_type, "limit"),
        # the claim facts a narrower limit asked for (its payer, the claim's plan)
        *_narrower(("payer_id", lim.payer_id), ("plan", lim.plan)),
    ]
    whose, scope = _whose_and_scope("limit", lim.limit_id is not None, lim.payer_type, lim.payer_id)
    return Applied(
        kind=FREQUENCY_LIMIT,
        scope=_scope(lim.origin, lim.payer_type, lim.payer_id),
        effective_from=lim.effective_from,
        source=lim.source,
        reference=lim.reference,
        selected_by=tuple(selectors),
        why=f"{whose} for {scope} (in {lim.codes}), line {line.line_number}: {line.explanation}",
        frequency=FrequencyDetail(
            line_number=line.line_number,
            procedure_code=line.procedure_code,
            procedure_codes=str(lim.codes),
            plan=lim.plan,
            max_units=lim.max_units,
            period=lim.period,
            period_length=lim.period_length,
            effective_to=lim.effective_to,
            version=lim.version,
            assumed=line.assumed,
            window_from=verdict.window.first,
            window_to=verdict.window.last,
            used=verdict.used,
            units=verdict.units,
            exceeds=verdict.exceeds,
            earlier=tuple(EarlierOut(s.service_date, s.units, s.claim_key) for s in verdict.counted),
        ),
    )


@dataclass(frozen=True, slots=True)
class LineSummary:
    """One claim line, the authorization requirement that applies to it and the frequency limit (None: none)."""

    line_number: int
    procedure_code: str | None
    authorization_reference: str | None
    needs_authorization: bool
    covered: bool | None
    frequency_reference: str | None = None
    exceeds_frequency: bool | None = None


def line_summaries(lines: list[tuple[int, str | None]], applied: list[Applied]) -> list[LineSummary]:
    """Every claim line (number, code), with the authorization requirement and the frequency limit applied to
    it or none (so "none applies" is said, not implied)."""
    by_line = {a.authorization.line_number: a for a in applied if a.authorization is not None}
    limited = {a.frequency.line_number: a for a in applied if a.frequency is not None}
    out = []
    for number, code in lines:
        found = by_line.get(number)
        detail = None if found is None else found.authorization
        counted = limited.get(number)
        out.append(
            LineSummary(
                line_number=number,
                procedure_code=code,
                authorization_reference=None if found is None else found.reference,
                needs_authorization=detail is not None and detail.requires_authorization,
                covered=None if detail is None else detail.covered,
                frequency_reference=None if counted is None else counted.reference,
                exceeds_frequency=None if counted is None or counted.frequency is None else counted.frequency.exceeds,
            )
        )
    return out
