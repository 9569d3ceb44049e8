"""The coding edit engine (pure: a claim's lines and diagnoses and the reference in, the edits out).

Which edits fire, and why (sources in each rule's comment):

- **ptp**: two lines on the same date of service whose codes are a column 1 / column 2 pair of an NCCI
  PTP edit in force that day. Modifier indicator 0: always an edit; 1: an edit unless the column 2 line
  carries an NCCI-associated modifier; 9: never (the edit was deleted retroactively). CMS NCCI Policy
  Manual for Medicare Services, Chapter I, sections D (PTP edits) and E (modifiers and modifier
  indicators); the PTP edits page of CMS (cms.gov, "Medicare NCCI Procedure to Procedure (PTP) Edits").
- **mue**: units of a code over its MUE value: per line when the MUE adjudication indicator is 1, summed
  over the lines of one date of service when it is 2 (policy) or 3 (clinical). CMS "Medicare NCCI
  Medically Unlikely Edits (MUEs)" page and NCCI Policy Manual Chapter I, section V (MUEs). MAI 3 is
  a warning: its denial may be appealed with documentation; MAI 1 and 2 are errors.
- **modifier**: a modifier that is not two letters or digits; a two-digit modifier that is not a CPT
  modifier; 59 with XE, XS, XP or XU on the same line (CMS MLN fact sheet "Proper Use of Modifiers 59 &
  -X{EPSU}", MLN1783722: never both on one line); 25 on a code outside the E/M range 99202-99499 (CPT
  modifier 25 is a significant, separately identifiable E/M service; NCCI Policy Manual Chapter XI,
  section C); 26 and TC on one line (the professional and technical components are billed on separate
  lines, or neither for the global service: Medicare Claims Processing Manual, Pub. 100-04, Chapter 12,
  section 20.4.3, and the MPFS PC/TC indicator).
- **diagnosis_invalid**: not shaped like an ICD-10-CM code, or absent from a category the extract holds
  whole (ICD-10-CM Official Guidelines for Coding and Reporting, section I.A.2 and I.B.1).
- **diagnosis_not_billable**: a category or subcategory header that has more specific codes (Official
  Guidelines I.B.1: "A code is invalid if it has not been coded to the full number of characters
  required for that code").
- **diagnosis_procedure**: a lab test with a national coverage determination (NCD 190.21, 190.22,
  190.23) and no diagnosis of the claim among those the NCD lists as supporting medical necessity
  (Medicare NCD Coding Policy Manual and Change Report, ICD-10-CM; Pub. 100-03 section 190).

The answer never depends on the order of the lines or diagnoses: edits come out in one canonical order.
Work is linear in the lines: pairs are looked up from each column-1 code present on a date, never by
comparing every line with every other.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

from api.denials.charge_coding.reference import ICD10CM, CodingReference, Mue, PtpEdit, dotted, undotted

EditKind = Literal["ptp", "mue", "modifier", "diagnosis_invalid", "diagnosis_not_billable", "diagnosis_procedure"]
Severity = Literal["error", "warning"]
KINDS: tuple[EditKind, ...] = (
    "ptp",
    "mue",
    "modifier",
    "diagnosis_invalid",
    "diagnosis_not_billable",
    "diagnosis_procedure",
)

#: NCCI-associated modifiers that may bypass an indicator-1 PTP edit (NCCI Policy Manual Ch. I, E:
#: anatomic E1-E4, FA, F1-F9, TA, T1-T9, LT, RT, LC, LD, RC, LM, RI; global surgery 24, 25, 57, 58, 78, 79;
#: other 27, 59, 91, XE, XS, XP, XU)
NCCI_MODIFIERS = frozenset(
    {"E1", "E2", "E3", "E4", "FA", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "LC", "LD", "LM", "LT"}
    | {"RC", "RI", "RT", "TA", "T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9"}
    | {"24", "25", "27", "57", "58", "59", "78", "79", "91", "XE", "XP", "XS", "XU"}
)
#: the two-digit CPT modifiers (CPT Appendix A); any other two-digit modifier is not a modifier
CPT_MODIFIERS = frozenset(
    [
        "22",
        "23",
        "24",
        "25",
        "26",
        "27",
        "32",
        "33",
        "47",
        "50",
        "51",
        "52",
        "53",
        "54",
        "55",
        "56",
        "57",
        "58",
        "59",
        "62",
        "63",
        "66",
        "73",
        "74",
        "76",
        "77",
        "78",
        "79",
        "80",
        "81",
        "82",
        "90",
        "91",
        "92",
        "93",
        "95",
        "96",
        "97",
        "99",
    ]
)
X_MODIFIERS = frozenset({"XE", "XP", "XS", "XU"})
EM_RANGE = (99202, 99499)  # the AMA CPT Evaluation and Management section
_MODIFIER = re.compile(r"[0-9A-Z]{2}")
_ORDER = {kind: n for n, kind in enumerate(KINDS)}


@dataclass(frozen=True, slots=True)
class Line:
    """A claim line as the engine sees it; `number` identifies it in the edits."""

    number: int
    procedure_code: str | None
    modifiers: tuple[str, ...] = ()
    units: Decimal = Decimal(1)
    service_date: date | None = None
    revenue_code: str | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """The reference row an edit comes from."""

    table: str
    version: str
    quarter: str
    key: str


@dataclass(frozen=True, slots=True)
class Edit:
    kind: EditKind
    rule: str
    severity: Severity
    lines: tuple[int, ...]
    codes: tuple[str, ...]
    message: str
    source: Source | None = None

    def sort_key(self) -> tuple[int, tuple[int, ...], str, tuple[str, ...], str]:
        return (_ORDER[self.kind], self.lines, self.rule, self.codes, self.message)


@dataclass(frozen=True, slots=True)
class Result:
    edits: tuple[Edit, ...]
    unchecked_diagnoses: tuple[str, ...]  # codes of categories the extract does not hold


def check_claim(lines: Sequence[Line], diagnoses: Iterable[str], reference: CodingReference) -> Result:
    """Every edit that fires on the claim, in canonical order, and the diagnoses the extract cannot judge."""
    diagnoses = tuple(diagnoses)  # read twice below
    codes = [_normal_code(line.procedure_code) for line in lines]
    clean = [
        Line(
            ln.number, code, tuple(m.strip().upper() for m in ln.modifiers), ln.units, ln.service_date, ln.revenue_code
        )
        for ln, code in zip(lines, codes, strict=True)
    ]
    diagnosis_edits, unchecked = _diagnosis_edits(diagnoses, reference)
    found = [
        *_ptp_edits(clean, reference),
        *_mue_edits(clean, reference),
        *_modifier_edits(clean),
        *diagnosis_edits,
        *_ncd_edits(clean, {undotted(d) for d in diagnoses}, reference),
    ]
    return Result(tuple(sorted(set(found), key=Edit.sort_key)), unchecked)


def _normal_code(code: str | None) -> str | None:
    return code.strip().upper() if code and code.strip() else None


def _by_date(lines: Iterable[Line]) -> dict[date, list[Line]]:
    days: dict[date, list[Line]] = defaultdict(list)
    for line in lines:
        if line.service_date is not None and line.procedure_code is not None:
            days[line.service_date].append(line)
    return days


def _ptp_source(edit: PtpEdit) -> Source:
    return Source(f"ncci_ptp_{edit.table}", edit.version, edit.quarter, f"{edit.column_1}/{edit.column_2}")


def _ptp_edits(lines: Sequence[Line], reference: CodingReference) -> list[Edit]:
    """One edit per PTP row and date of service (all the lines of its two codes that day): linear in the
    lines, where one edit per pair of lines would grow with their product."""
    found: list[Edit] = []
    for day, on_day in _by_date(lines).items():
        by_code: dict[str, list[Line]] = defaultdict(list)
        for line in on_day:
            by_code[str(line.procedure_code)].append(line)
        for column_1, firsts in by_code.items():
            for edit in reference.ptp_by_column_1.get(column_1, ()):
                seconds = by_code.get(edit.column_2)
                if seconds and edit.in_force(day) and edit.modifier_indicator != 9:
                    found.extend(_ptp_edit(edit, day, firsts, seconds))
    return found


def _numbers(lines: Iterable[Line]) -> str:
    return ", ".join(str(n) for n in sorted(line.number for line in lines))


def _ptp_edit(edit: PtpEdit, day: date, firsts: Sequence[Line], seconds: Sequence[Line]) -> list[Edit]:
    if edit.modifier_indicator == 1:
        # indicator 1: an NCCI-associated modifier on the column 2 line says it was a distinct service
        seconds = [line for line in seconds if not NCCI_MODIFIERS.intersection(line.modifiers)]
        if not seconds:
            return []
    pair = f"{edit.column_1} (line {_numbers(firsts)}) and {edit.column_2} (line {_numbers(seconds)})"
    if edit.modifier_indicator == 0:
        rule = "ptp_indicator_0"
        message = (
            f"{pair} may not be billed together on {day.isoformat()} ({edit.rationale}); no modifier allows it: "
            f"remove {edit.column_2} unless it is the only service."
        )
    else:
        rule = "ptp_indicator_1"
        message = (
            f"{pair} are bundled on {day.isoformat()} ({edit.rationale}); if {edit.column_2} was a distinct "
            "service, report it with an NCCI-associated modifier (e.g. XS, XE, XP, XU, 59, or an anatomic one)."
        )
    numbers = tuple(sorted({line.number for line in [*firsts, *seconds]}))
    return [Edit("ptp", rule, "error", numbers, (edit.column_1, edit.column_2), message, _ptp_source(edit))]


def _mue_source(mue: Mue) -> Source:
    return Source(f"ncci_mue_{mue.table}", mue.quarter, mue.quarter, mue.code)


def _mue_edits(lines: Sequence[Line], reference: CodingReference) -> list[Edit]:
    found: list[Edit] = []
    for day, on_day in _by_date(lines).items():
        by_code: dict[str, list[Line]] = defaultdict(list)
        for line in on_day:
            by_code[str(line.procedure_code)].append(line)
        for code, coded in by_code.items():
            mue = reference.mue.get(code)
            if mue is None:
                continue
            if mue.mai == 1:
                found.extend(_mue_edit(mue, [line], line.units, day) for line in coded if line.units > mue.value)
            else:
                total = sum((line.units for line in coded), Decimal(0))
                if total > mue.value:
                    found.append(_mue_edit(mue, coded, total, day))
    return found


def _mue_edit(mue: Mue, lines: Sequence[Line], units: Decimal, day: date) -> Edit:
    numbers = tuple(sorted(line.number for line in lines))
    counted = "on the line" if mue.mai == 1 else f"on {day.isoformat()} (all its lines)"
    message = (
        f"{mue.code}: {_units(units)} units {counted}, more than the MUE of {mue.value} "
        f"(MAI {mue.mai}, {mue.mai_description}; {mue.rationale})."
    )
    if mue.mai == 3:
        message += " A denial may be appealed with documentation of medical necessity."
    rule = "mue_line" if mue.mai == 1 else "mue_date_of_service"
    return Edit("mue", rule, "warning" if mue.mai == 3 else "error", numbers, (mue.code,), message, _mue_source(mue))


def _units(units: Decimal) -> str:
    return format(units.normalize(), "f") if units == units.to_integral_value() else str(units)


def _modifier_edits(lines: Sequence[Line]) -> list[Edit]:
    found: list[Edit] = []
    for line in lines:
        code = line.procedure_code or "(no code)"
        mods = line.modifiers
        for mod in mods:
            if not _MODIFIER.fullmatch(mod):
                found.append(
                    _modifier(line, "modifier_format", f"line {line.number}: a modifier must be two letters or digits.")
                )
            elif mod.isdigit() and mod not in CPT_MODIFIERS:
                found.append(_modifier(line, "modifier_unknown", f"line {line.number}: {mod} is not a CPT modifier."))
        if "59" in mods and X_MODIFIERS.intersection(mods):
            found.append(
                _modifier(
                    line,
                    "modifier_59_with_x",
                    (
                        f"line {line.number} ({code}): 59 and {'/'.join(sorted(X_MODIFIERS.intersection(mods)))} on one "
                        "line; report the more specific X modifier alone."
                    ),
                )
            )
        if "25" in mods and not _is_em(line.procedure_code):
            found.append(
                _modifier(
                    line,
                    "modifier_25_not_em",
                    (f"line {line.number} ({code}): modifier 25 belongs on an E/M service (99202-99499) only."),
                )
            )
        if "26" in mods and "TC" in mods:
            found.append(
                _modifier(
                    line,
                    "modifier_26_with_tc",
                    (
                        f"line {line.number} ({code}): 26 and TC on one line; bill the components on two lines, "
                        "or the global service without either."
                    ),
                )
            )
    return found


def _modifier(line: Line, rule: str, message: str) -> Edit:
    return Edit("modifier", rule, "error", (line.number,), (line.procedure_code or "",), message)


def _is_em(code: str | None) -> bool:
    return code is not None and code.isdigit() and EM_RANGE[0] <= int(code) <= EM_RANGE[1]


def _icd_source(reference: CodingReference, code: str) -> Source:
    return Source("icd10cm_codes", reference.icd_release, reference.icd_release, dotted(code))


def _diagnosis_edits(diagnoses: Iterable[str], reference: CodingReference) -> tuple[list[Edit], tuple[str, ...]]:
    found: list[Edit] = []
    unchecked: set[str] = set()
    for given in {undotted(d) for d in diagnoses}:
        known = reference.icd.get(given)
        if not ICD10CM.fullmatch(given):
            found.append(
                Edit(
                    "diagnosis_invalid",
                    "diagnosis_format",
                    "error",
                    (),
                    (given,),
                    "A diagnosis is not shaped like an ICD-10-CM code.",
                )
            )
        elif known is not None and not known.billable:
            found.append(
                Edit(
                    "diagnosis_not_billable",
                    "diagnosis_header",
                    "error",
                    (),
                    (known.dotted,),
                    (
                        f"{known.dotted} ({known.description}) is a header, not a billable code: "
                        "report its most specific code."
                    ),
                    _icd_source(reference, given),
                )
            )
        elif known is None and given[:3] in reference.icd_categories:
            found.append(
                Edit(
                    "diagnosis_invalid",
                    "diagnosis_unknown",
                    "error",
                    (),
                    (dotted(given),),
                    (f"{dotted(given)} is not an ICD-10-CM code of the {reference.icd_release} release."),
                    _icd_source(reference, given[:3]),
                )
            )
        elif known is None:
            unchecked.add(dotted(given))
    return found, tuple(sorted(unchecked))


def _ncd_edits(lines: Sequence[Line], diagnoses: set[str], reference: CodingReference) -> list[Edit]:
    by_code: dict[str, list[int]] = defaultdict(list)
    for line in lines:
        if line.procedure_code is not None and line.procedure_code in reference.ncd:
            by_code[line.procedure_code].append(line.number)
    found: list[Edit] = []
    for code, numbers in by_code.items():
        rule = reference.ncd[code]
        if diagnoses & rule.diagnoses:
            continue
        message = (
            f"{code} is covered under NCD {rule.ncd} ({rule.title}) only with a diagnosis that supports it; "
            "none of the claim's diagnoses is listed."
        )
        source = Source("ncd_lab_diagnoses", rule.ncd, rule.basis, code)
        found.append(
            Edit(
                "diagnosis_procedure",
                "ncd_no_supporting_diagnosis",
                "error",
                tuple(sorted(numbers)),
                (code,),
                message,
                source,
            )
        )
    return found
