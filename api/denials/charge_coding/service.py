"""chargeCoding use cases: the reference edits of a code, a claim's coding validated and stored, and the
coding denials the edits would have caught. Claims and cases are read through their owners' published
functions (``claims.service``, ``cases.service``). Functions take the tenant-scoped session and plain
values and never commit; messages name ids and codes, never a claim key or patient data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, NotFound
from api.denials.cases import service as cases
from api.denials.charge_coding.edits import KINDS, Edit, EditKind, Line, Result, check_claim
from api.denials.charge_coding.models import CodingValidation
from api.denials.charge_coding.reference import HCPCS, REFERENCE, CodingReference, Mue, NcdRule, PtpEdit
from api.denials.claims import service as claims

#: how many stored lines one validation reads (an 837I claim has at most 999)
MAX_LINES = 1000

#: the denial categories of coding work (dbt_project/seeds/reference/denial_categories.csv)
CODING_CATEGORIES = ("coding", "bundling")
#: CARCs a coding edit can prevent, and the edit kinds that would have caught each (X12 code source 139):
#: 97/B15/234/236 bundling, 151/119 units and frequency, 4/182 modifier, 11/146/167 diagnosis,
#: 16 missing or invalid information
CARC_EDIT_KINDS: dict[str, tuple[EditKind, ...]] = {
    "97": ("ptp",),
    "B15": ("ptp",),
    "234": ("ptp",),
    "236": ("ptp", "modifier"),
    "151": ("mue",),
    "119": ("mue",),
    "4": ("modifier",),
    "182": ("modifier",),
    "11": ("diagnosis_procedure", "diagnosis_invalid", "diagnosis_not_billable"),
    "146": ("diagnosis_invalid", "diagnosis_not_billable"),
    "167": ("diagnosis_procedure",),
    "16": ("diagnosis_invalid", "diagnosis_not_billable", "modifier"),
}


# --- the reference ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeEdits:
    """The reference rows about one code (or one pair): PTP rows in file order from `start`, the MUE and
    the NCD rule; `next_start` is where the next page begins (None: no more)."""

    ptp: list[PtpEdit]
    next_start: int | None
    mue: Mue | None
    ncd: NcdRule | None


def reference_edits(
    code: str, *, pair_with: str | None = None, start: int = 0, limit: int = 50, reference: CodingReference = REFERENCE
) -> CodeEdits:
    """PTP rows naming `code` in either column (only the pair with `pair_with`, either order), its MUE and its
    NCD rule; paged by position in the table."""
    for name, value in (("code", code), ("pairWith", pair_with)):
        if value is not None and not HCPCS.fullmatch(value):
            raise InvalidInput(f"Invalid input: '{name}' must be a 5-character CPT/HCPCS code")
    wanted = {code, pair_with} if pair_with else None
    matches = [
        e
        for e in reference.ptp
        if (wanted is None and code in (e.column_1, e.column_2)) or (wanted == {e.column_1, e.column_2})
    ]
    page = matches[start : start + limit]
    more = start + limit < len(matches)
    return CodeEdits(page, start + limit if more else None, reference.mue.get(code), reference.ncd.get(code))


# --- a claim ---------------------------------------------------------------------------------------


def _engine_lines(rows: Sequence[claims.ClaimLineRow], fallback: Any) -> list[Line]:
    return [
        Line(
            number=row.line_number,
            procedure_code=row.procedure_code,
            modifiers=tuple(row.modifiers or ()),
            units=row.units if row.units is not None else Decimal(1),
            service_date=row.service_date_from or fallback,
            revenue_code=row.revenue_code,
        )
        for row in rows
    ]


def edit_record(edit: Edit) -> dict[str, Any]:
    """An edit as stored and answered (plain values)."""
    record = asdict(edit)
    record["lines"] = list(edit.lines)
    record["codes"] = list(edit.codes)
    return record


def validate_claim(
    db: Session, claim_id: int, *, user_id: int, reference: CodingReference = REFERENCE
) -> CodingValidation:
    """Run the edits on the client's claim `claim_id` and store the result (NOT_FOUND for another client's)."""
    record = claims.claim_record(db, claim_id)
    if record is None:
        raise NotFound(f"Claim {claim_id} not found")
    if len(record.lines) > MAX_LINES:
        raise InvalidInput(f"Invalid input: claim {claim_id} has more than {MAX_LINES} lines")
    lines = _engine_lines(record.lines, record.claim.statement_from)
    result = check_claim(lines, record.claim.diagnosis_codes or [], reference)
    validation = CodingValidation(
        claim_id=record.claim.id,
        reference_version=reference.version,
        lines_checked=len(lines),
        error_count=sum(1 for e in result.edits if e.severity == "error"),
        warning_count=sum(1 for e in result.edits if e.severity == "warning"),
        edits=[edit_record(e) for e in result.edits],
        unchecked_diagnoses=list(result.unchecked_diagnoses),
        created_by=user_id,
    )
    db.add(validation)
    db.flush()
    return validation


# --- coding denials --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodingDenial:
    """A coding denial case and what the edits find on its claim now."""

    case_id: int
    carc: str | None
    denial_category: str | None
    claim_id: int | None  # None: the client has no claim with the case's claim key
    edits: tuple[Edit, ...]
    expected_kinds: tuple[EditKind, ...]  # empty: any edit counts (a coding category without a known CARC)

    @property
    def caught_by(self) -> tuple[EditKind, ...]:
        """The kinds of the edits that would have caught the denial."""
        kinds = {e.kind for e in self.edits if not self.expected_kinds or e.kind in self.expected_kinds}
        return tuple(k for k in KINDS if k in kinds)

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


@dataclass(frozen=True)
class CodingDenials:
    items: list[CodingDenial]
    truncated: bool  # more coding denials exist than `limit`

    @property
    def caught(self) -> int:
        return sum(1 for item in self.items if item.caught)

    @property
    def share(self) -> float | None:
        return self.caught / len(self.items) if self.items else None

    def by_kind(self) -> dict[EditKind, int]:
        counts = Counter(kind for item in self.items for kind in item.caught_by)
        return {kind: counts[kind] for kind in KINDS}

    def by_carc(self) -> list[tuple[str | None, int, int]]:
        total = Counter(item.carc for item in self.items)
        caught = Counter(item.carc for item in self.items if item.caught)
        return [(carc, total[carc], caught[carc]) for carc in sorted(total, key=lambda c: (c is None, c or ""))]


def _claim_results(db: Session, keys: set[str], reference: CodingReference) -> dict[str, tuple[int, Result]]:
    found = claims.claims_with_keys(db, sorted(keys))
    lines = claims.lines_of_claims(db, [c.id for c in found])
    return {
        claim.claim_key: (
            claim.id,
            check_claim(
                _engine_lines(lines[claim.id][:MAX_LINES], claim.statement_from), claim.diagnosis_codes or [], reference
            ),
        )
        for claim in found
    }


def coding_denials(db: Session, *, limit: int, reference: CodingReference = REFERENCE) -> CodingDenials:
    """The client's newest `limit` coding denials (category coding or bundling, or a CARC a coding edit can
    prevent), each with the edits the engine finds on its claim today."""
    rows = cases.denial_cases_classified(
        db, categories=CODING_CATEGORIES, carcs=tuple(CARC_EDIT_KINDS), limit=limit + 1
    )
    truncated = len(rows) > limit
    rows = rows[:limit]
    results = _claim_results(db, {row.claim_key for row in rows}, reference)
    items = []
    for row in rows:
        claim = results.get(row.claim_key)
        items.append(
            CodingDenial(
                case_id=row.id,
                carc=row.carc,
                denial_category=row.denial_category,
                claim_id=claim[0] if claim else None,
                edits=claim[1].edits if claim else (),
                expected_kinds=CARC_EDIT_KINDS.get(row.carc or "", ()),
            )
        )
    return CodingDenials(items, truncated)
