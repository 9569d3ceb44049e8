"""Which prior-authorization requirement applies to a service line on a date (pure: no I/O).

A requirement is data: a scope (payer type, and a payer id or ``*`` for every payer of the type —
the same scope as the payer rules of ``api.denials.deadlines``), an optional plan, a procedure code or
code range (CPT/HCPCS), an optional place of service (2-digit CMS POS code) and revenue code, the dates
it is in force, its source (required) and its version. ``requires_authorization`` False is an
exemption: a client's contract saying a code needs no authorization from a payer overrides a broader
requirement the same way a narrower requirement does.

The choice, for one line on one date, among the requirements in force that match it:

1. the most specific wins, in this order of precedence: a payer-specific row over a type-wide one, a
   plan-specific row over any plan, a place-of-service-specific row over any place, a revenue-code
   row over any revenue code, then the narrower code range (a single code over a range);
2. at the same specificity a client's own row over the platform default;
3. then the latest effective (the greatest ``effective_from``), then the highest version.

A fact the line does not have (no place of service, no plan on the claim) is matched only by
requirements that do not ask for it (``*``). An unknown payer type (no filing indicator, no class)
is evaluated as each common payer type in turn: a requirement under any of them is reported, flagged
``assumed`` (the shortest-window choice the deadlines make for an unknown payer, turned into the
cautious one: ask rather than be denied).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date

from api.denials.deadlines.rules import COMMON_TYPES, PAYER_TYPES, UNKNOWN_TYPE

ANY = "*"
#: CPT Category I (5 digits), Category II (4 digits + F), Category III (4 digits + T), PLA (4 digits + U),
#: HCPCS Level II (a letter A-V + 4 digits). The AMA's CPT code set and CMS's HCPCS Level II file.
_CODE = re.compile(r"[0-9]{4}[0-9FTU]|[A-V][0-9]{4}")
_POS = re.compile(r"[0-9]{2}")
_REVENUE = re.compile(r"[0-9]{3,4}")
#: the longest text parsed as a code or range: anything longer is refused before a regex sees it
_MAX_RANGE_TEXT = 11


class RequirementError(ValueError):
    """A requirement's value is malformed; the message names the field and what is expected."""


def _is_code(text: str) -> bool:
    return _CODE.fullmatch(text) is not None


def parse_code(text: str, field: str = "procedureCode") -> str:
    """An upper-cased CPT/HCPCS code, or RequirementError naming `field`."""
    code = text.strip().upper()
    if len(code) != 5 or not _is_code(code):
        raise RequirementError(
            f"'{field}' must be a CPT code (5 digits, or 4 digits and F, T or U) or a HCPCS Level II code "
            "(a letter A-V and 4 digits)"
        )
    return code


def line_code(text: str | None) -> str | None:
    """A claim line's procedure code as a code, or None when it is not one (a revenue-only line, a
    local code): such a line is matched by no requirement."""
    if text is None or len(text) > 20:
        return None
    code = text.strip().upper()
    return code if len(code) == 5 and _is_code(code) else None


def _kind(code: str) -> str:
    """Codes compare only within their kind: numeric CPT, a HCPCS letter, a Category II/III/PLA suffix."""
    if code[0].isalpha():
        return code[0]
    return code[-1] if code[-1].isalpha() else "#"


@dataclass(frozen=True, slots=True)
class CodeRange:
    """Codes `low`..`high` inclusive, of one kind (``70551-70553``; a single code is low == high)."""

    low: str
    high: str

    def contains(self, code: str) -> bool:
        # same length and kind: the string order is the code order (digits, then the fixed letter)
        return _kind(code) == _kind(self.low) and self.low <= code <= self.high

    @property
    def width(self) -> int:
        """How many codes the range spans (1 for a single code)."""
        return int(_digits(self.high)) - int(_digits(self.low)) + 1

    def __str__(self) -> str:
        return self.low if self.low == self.high else f"{self.low}-{self.high}"


def _digits(code: str) -> str:
    return "".join(ch for ch in code if ch.isdigit())


def parse_code_range(text: str, field: str = "procedureCode") -> CodeRange:
    """``70551`` or ``70551-70553`` (both ends of one kind, low <= high); RequirementError otherwise."""
    raw = text.strip()
    if len(raw) > _MAX_RANGE_TEXT:
        raise RequirementError(f"'{field}' must be a code or a range of two codes like 70551-70553")
    low_text, dash, high_text = raw.partition("-")
    low = parse_code(low_text, field)
    high = parse_code(high_text, field) if dash else low
    if _kind(low) != _kind(high):
        raise RequirementError(f"'{field}': both ends of a range must be codes of the same kind")
    if high < low:
        raise RequirementError(f"'{field}': the range's first code is after its last")
    return CodeRange(low, high)


def parse_place_of_service(text: str | None) -> str:
    """A 2-digit CMS place-of-service code, or ``*`` for None / ``*``."""
    if text is None or text.strip() == ANY:
        return ANY
    pos = text.strip()
    if _POS.fullmatch(pos) is None:
        raise RequirementError("'placeOfService' must be a 2-digit CMS place-of-service code (e.g. 22) or *")
    return pos


def revenue_code(text: str | None) -> str | None:
    """A revenue code as 4 digits (NUBC; ``450`` and ``0450`` are one code), None when not one."""
    if text is None or len(text) > 4 or _REVENUE.fullmatch(text.strip()) is None:
        return None
    return text.strip().zfill(4)


def parse_revenue_code(text: str | None) -> str:
    """A requirement's revenue code (4 digits), or ``*`` for None / ``*``."""
    if text is None or text.strip() == ANY:
        return ANY
    found = revenue_code(text)
    if found is None:
        raise RequirementError("'revenueCode' must be a 3- or 4-digit revenue code (e.g. 0450) or *")
    return found


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement (a platform default when `requirement_id` is None, else a client's row)."""

    payer_type: str
    codes: CodeRange
    effective_from: date
    source: str
    payer_id: str = ANY
    plan: str = ANY
    place_of_service: str = ANY
    revenue_code: str = ANY
    requires_authorization: bool = True
    effective_to: date | None = None
    version: int = 1
    requirement_id: int | None = None
    order: int = 0  # the platform file's row (a stable name for a default)

    @property
    def origin(self) -> str:
        return "platform" if self.requirement_id is None else "client"

    @property
    def reference(self) -> str:
        if self.requirement_id is not None:
            return f"prior_auth_requirements/{self.requirement_id}"
        return f"platform/{self.payer_type}/{self.codes}"

    def in_force(self, on: date) -> bool:
        return self.effective_from <= on and (self.effective_to is None or on <= self.effective_to)


def check(requirement: Requirement) -> Requirement:
    """The requirement if its values hold together; RequirementError naming the field otherwise."""
    if requirement.payer_type not in PAYER_TYPES:
        raise RequirementError(f"'payerType' must be one of {', '.join(PAYER_TYPES)}")
    if not requirement.payer_id.strip() or not requirement.plan.strip():
        raise RequirementError("'payerId' and 'plan' must be given or *")
    if requirement.effective_to is not None and requirement.effective_to < requirement.effective_from:
        raise RequirementError("'effectiveTo' is before 'effectiveFrom'")
    if not requirement.source.strip():
        raise RequirementError("'source' is required: the payer's list, contract clause or regulation")
    if requirement.version < 1:
        raise RequirementError("'version' must be 1 or more")
    return requirement


@dataclass(frozen=True, slots=True)
class ServiceFacts:
    """What a service line is matched on. `payer_type` None: self-pay (nothing to authorize);
    ``unknown``: every common payer type is tried."""

    payer_type: str | None
    procedure_code: str | None
    service_date: date
    payer_id: str | None = None
    plan: str | None = None
    place_of_service: str | None = None
    revenue_code: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """The requirement that applies and whether the payer type was assumed (unknown payer)."""

    requirement: Requirement
    assumed: bool

    @property
    def required(self) -> bool:
        return self.requirement.requires_authorization


def _matches(req: Requirement, payer_type: str, facts: ServiceFacts, code: str) -> bool:
    def fits(wanted: str, given: str | None) -> bool:
        return wanted == ANY or (given is not None and wanted == given)

    return (
        req.payer_type == payer_type
        and fits(req.payer_id, (facts.payer_id or "").strip().upper() or None)
        and fits(req.plan, (facts.plan or "").strip().upper() or None)
        and fits(req.place_of_service, facts.place_of_service)
        and fits(req.revenue_code, revenue_code(facts.revenue_code))
        and req.codes.contains(code)
        and req.in_force(facts.service_date)
    )


def specificity(req: Requirement) -> tuple[int, int, int, int, int, int, date, int, int]:
    """The sort key of the choice (greater wins): see the module docstring."""
    return (
        int(req.payer_id != ANY),
        int(req.plan != ANY),
        int(req.place_of_service != ANY),
        int(req.revenue_code != ANY),
        -req.codes.width,
        int(req.requirement_id is not None),
        req.effective_from,
        req.version,
        req.requirement_id or 0,
    )


def _for_type(
    payer_type: str, facts: ServiceFacts, code: str, requirements: tuple[Requirement, ...]
) -> Requirement | None:
    found = [r for r in requirements if _matches(r, payer_type, facts, code)]
    return max(found, key=specificity) if found else None


def requirement_for(facts: ServiceFacts, requirements: tuple[Requirement, ...]) -> Decision | None:
    """The requirement that applies to the line (None: none, or self-pay, or not a procedure code).
    Payer ids and plans compare upper-cased (stored upper-cased by the service)."""
    code = line_code(facts.procedure_code)
    if facts.payer_type is None or code is None:
        return None
    if facts.payer_type != UNKNOWN_TYPE:
        found = _for_type(facts.payer_type, facts, code, requirements)
        return Decision(found, False) if found is not None else None
    chosen = [r for r in (_for_type(t, facts, code, requirements) for t in COMMON_TYPES) if r is not None]
    if not chosen:
        return None
    requiring = [r for r in chosen if r.requires_authorization]
    return Decision((requiring or chosen)[0], True)


def parse_platform_requirements(text: str) -> tuple[Requirement, ...]:
    """The platform's reference requirements (``platform_requirements.csv``: one row per code or range,
    each with its citation); RequirementError naming the line of a malformed row."""
    out: list[Requirement] = []
    for index, row in enumerate(csv.DictReader(text.splitlines())):
        line = index + 2
        try:
            flag = row["requires_authorization"].strip()
            if flag not in ("Y", "N"):
                raise RequirementError("'requires_authorization' must be Y or N")
            until = (row.get("effective_to") or "").strip()
            out.append(
                check(
                    Requirement(
                        payer_type=row["payer_type"].strip(),
                        payer_id=row["payer_id"].strip().upper() or ANY,
                        plan=row["plan"].strip().upper() or ANY,
                        codes=parse_code_range(row["procedure_code"]),
                        place_of_service=parse_place_of_service(row["place_of_service"] or None),
                        revenue_code=parse_revenue_code(row["revenue_code"] or None),
                        requires_authorization=flag == "Y",
                        effective_from=date.fromisoformat(row["effective_from"].strip()),
                        effective_to=date.fromisoformat(until) if until else None,
                        source=row["source"].strip(),
                        order=index,
                    )
                )
            )
        except (KeyError, ValueError) as error:  # RequirementError is a ValueError
            raise RequirementError(f"platform requirements line {line}: {error}") from None
    return tuple(out)
