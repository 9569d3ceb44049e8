"""The coding reference data, read once at import from ``dbt_project/seeds/coding`` (pure afterwards).

Four small extracts of public tables, each row with its table and quarter (the folder's README says where
every file comes from and what was taken):

- ``ncci_ptp_practitioner.csv``: CMS NCCI procedure-to-procedure edits, practitioner table v322r0
  (2026 Q3); column 1 / column 2, effective and deletion dates, the modifier indicator;
- ``ncci_mue_practitioner.csv``: CMS NCCI medically unlikely edits, practitioner services, 2026 Q3;
  the MUE value and the MUE adjudication indicator (MAI);
- ``icd10cm_codes.csv``: ICD-10-CM FY2026 (April 1 update) codes of a few whole categories, each with
  whether it is billable (a header such as E11 or E11.6 is not; E11.65 is);
- ``ncd_lab_diagnoses.csv``: diagnoses that support medical necessity for three lab tests under the
  national coverage determinations 190.21, 190.22 and 190.23.

An extract answers only for what it holds: a diagnosis of a category it holds whole is checked, any other
is reported as unchecked; a code pair or code it does not list has no known edit.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

CODING_DIR = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "coding"

#: a CPT / HCPCS Level II code: five characters (CPT Category I/II/III, PLA, HCPCS letters)
HCPCS = re.compile(r"[0-9A-Z]{5}")
#: an ICD-10-CM code without its dot: a letter, a digit, a character, then up to four more
ICD10CM = re.compile(r"[A-Z][0-9][0-9A-Z][0-9A-Z]{0,4}")
_ICD10CM_DOTTED = re.compile(r"[A-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?")


class CodingDataError(ValueError):
    """A reference file has a malformed or duplicate row (the message names the file and line)."""


@dataclass(frozen=True, slots=True)
class PtpEdit:
    """One row of an NCCI PTP table: column 1 and column 2 codes may not be reported together on one date
    of service unless the modifier indicator allows an NCCI-associated modifier."""

    table: str
    version: str
    quarter: str
    column_1: str
    column_2: str
    prior_to_1996: bool
    effective: date
    deleted: date | None  # the last day the edit is in force (CMS prints "*" for none)
    modifier_indicator: int  # 0 not allowed, 1 allowed, 9 not applicable
    rationale: str

    def in_force(self, day: date) -> bool:
        return self.effective <= day and (self.deleted is None or day <= self.deleted)


@dataclass(frozen=True, slots=True)
class Mue:
    """One row of an NCCI MUE table: the most units of a code one provider reports for one patient on one
    date of service, and how they are counted (MAI 1 per line, 2 and 3 per date of service)."""

    table: str
    quarter: str
    code: str
    value: int
    mai: int
    mai_description: str
    rationale: str


@dataclass(frozen=True, slots=True)
class IcdCode:
    """An ICD-10-CM code of the extract: billable (valid on a claim) or a header of more specific codes."""

    code: str  # without its dot, as claims carry it
    dotted: str
    billable: bool
    release: str
    description: str


@dataclass(frozen=True, slots=True)
class NcdRule:
    """The diagnoses that support a lab test's medical necessity under a national coverage determination."""

    ncd: str
    title: str
    procedure_code: str
    diagnoses: frozenset[str]  # without dots
    basis: str


@dataclass(frozen=True, slots=True)
class CodingReference:
    """The extracts indexed for the engine."""

    ptp: tuple[PtpEdit, ...]
    ptp_by_column_1: Mapping[str, tuple[PtpEdit, ...]]
    mue: Mapping[str, Mue]
    icd: Mapping[str, IcdCode]
    icd_categories: frozenset[str]  # the three-character categories the extract holds whole
    icd_release: str
    ncd: Mapping[str, NcdRule]
    versions: Mapping[str, str]

    @property
    def version(self) -> str:
        """One string naming every table's version: stored with each validation."""
        return "; ".join(f"{name} {value}" for name, value in self.versions.items())


def undotted(code: str) -> str:
    """An ICD-10-CM code as claims carry it: upper case, no dot, no spaces."""
    return code.strip().upper().replace(".", "")


def dotted(code: str) -> str:
    """An ICD-10-CM code as people read it: the dot after the category (E1165 -> E11.65)."""
    code = undotted(code)
    return code if len(code) <= 3 else f"{code[:3]}.{code[3:]}"


def _rows(text: str, name: str, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(text.splitlines())
    if tuple(reader.fieldnames or ()) != columns:
        raise CodingDataError(f"{name}: the header must be {','.join(columns)}")
    rows: list[tuple[int, dict[str, str]]] = []
    for index, row in enumerate(reader):
        if None in row:  # more fields than the header names
            raise CodingDataError(f"{name} line {index + 2}: more fields than the header has")
        rows.append((index + 2, {k: (v or "").strip() for k, v in row.items()}))
    return rows


def _date(value: str, name: str, line: int, column: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CodingDataError(f"{name} line {line}: '{column}' must be a date YYYY-MM-DD") from None


def _need(ok: bool, name: str, line: int, what: str) -> None:
    if not ok:
        raise CodingDataError(f"{name} line {line}: {what}")


PTP_COLUMNS = (
    "ncci_table",
    "version",
    "quarter",
    "column_1",
    "column_2",
    "prior_to_1996",
    "effective_date",
    "deletion_date",
    "modifier_indicator",
    "rationale",
)


def parse_ptp(text: str, name: str = "ncci_ptp_practitioner.csv") -> tuple[PtpEdit, ...]:
    edits: list[PtpEdit] = []
    seen: set[tuple[str, str, date]] = set()
    for line, row in _rows(text, name, PTP_COLUMNS):
        c1, c2 = row["column_1"], row["column_2"]
        _need(
            bool(HCPCS.fullmatch(c1) and HCPCS.fullmatch(c2)) and c1 != c2,
            name,
            line,
            "two different 5-character codes",
        )
        _need(row["modifier_indicator"] in ("0", "1", "9"), name, line, "'modifier_indicator' must be 0, 1 or 9")
        _need(row["prior_to_1996"] in ("Y", "N"), name, line, "'prior_to_1996' must be Y or N")
        _need(
            bool(row["rationale"] and row["quarter"] and row["version"]), name, line, "rationale, version and quarter"
        )
        effective = _date(row["effective_date"], name, line, "effective_date")
        deleted = _date(row["deletion_date"], name, line, "deletion_date") if row["deletion_date"] else None
        _need(deleted is None or deleted >= effective, name, line, "the deletion date precedes the effective date")
        _need((c1, c2, effective) not in seen, name, line, "duplicate column_1/column_2/effective_date")
        seen.add((c1, c2, effective))
        edits.append(
            PtpEdit(
                row["ncci_table"],
                row["version"],
                row["quarter"],
                c1,
                c2,
                row["prior_to_1996"] == "Y",
                effective,
                deleted,
                int(row["modifier_indicator"]),
                row["rationale"],
            )
        )
    return tuple(edits)


MUE_COLUMNS = ("ncci_table", "quarter", "code", "mue_value", "mai", "mai_description", "rationale")


def parse_mue(text: str, name: str = "ncci_mue_practitioner.csv") -> dict[str, Mue]:
    found: dict[str, Mue] = {}
    for line, row in _rows(text, name, MUE_COLUMNS):
        code = row["code"]
        _need(bool(HCPCS.fullmatch(code)), name, line, "'code' must be a 5-character code")
        _need(row["mue_value"].isdigit() and len(row["mue_value"]) <= 6, name, line, "'mue_value' is a whole number")
        _need(row["mai"] in ("1", "2", "3"), name, line, "'mai' must be 1, 2 or 3")
        _need(code not in found, name, line, "duplicate code")
        _need(bool(row["quarter"] and row["rationale"]), name, line, "quarter and rationale")
        found[code] = Mue(
            row["ncci_table"],
            row["quarter"],
            code,
            int(row["mue_value"]),
            int(row["mai"]),
            row["mai_description"],
            row["rationale"],
        )
    return found


ICD_COLUMNS = ("code", "billable", "release", "description")


def parse_icd(text: str, name: str = "icd10cm_codes.csv") -> dict[str, IcdCode]:
    found: dict[str, IcdCode] = {}
    for line, row in _rows(text, name, ICD_COLUMNS):
        code = row["code"]
        _need(bool(_ICD10CM_DOTTED.fullmatch(code)), name, line, "'code' must be an ICD-10-CM code with its dot")
        _need(row["billable"] in ("Y", "N"), name, line, "'billable' must be Y or N")
        _need(bool(row["release"] and row["description"]), name, line, "release and description")
        key = undotted(code)
        _need(key not in found, name, line, "duplicate code")
        found[key] = IcdCode(key, code, row["billable"] == "Y", row["release"], row["description"])
    _check_headers(found, name)
    return found


def _check_headers(codes: Mapping[str, IcdCode], name: str) -> None:
    """Whole categories only: a code's parent is in the file, and a billable code has no child in it (the
    parent of a seventh-character code skips its placeholder X: E11.37X1 -> E11.37)."""
    for code in codes.values():
        if len(code.code) > 3:
            parent = code.code[:-1]
            while parent not in codes and len(parent) > 3 and parent.endswith("X"):
                parent = parent[:-1]
            if parent not in codes:
                raise CodingDataError(f"{name}: {code.dotted} has no parent {dotted(parent)} in the file")
            if codes[parent].billable:
                raise CodingDataError(f"{name}: {dotted(parent)} is billable but has the child {code.dotted}")


NCD_COLUMNS = ("ncd", "ncd_title", "procedure_code", "icd10cm_code", "basis")


def parse_ncd(text: str, icd: Mapping[str, IcdCode], name: str = "ncd_lab_diagnoses.csv") -> dict[str, NcdRule]:
    diagnoses: dict[str, set[str]] = defaultdict(set)
    heads: dict[str, tuple[str, str, str]] = {}
    for line, row in _rows(text, name, NCD_COLUMNS):
        code, diagnosis = row["procedure_code"], undotted(row["icd10cm_code"])
        _need(bool(HCPCS.fullmatch(code)), name, line, "'procedure_code' must be a 5-character code")
        _need(
            diagnosis in icd and icd[diagnosis].billable, name, line, "a billable ICD-10-CM code of icd10cm_codes.csv"
        )
        _need(bool(re.fullmatch(r"[0-9]{3}\.[0-9]{1,2}", row["ncd"])), name, line, "'ncd' is an NCD number like 190.22")
        head = (row["ncd"], row["ncd_title"], row["basis"])
        _need(heads.setdefault(code, head) == head, name, line, "one NCD per procedure code")
        _need(diagnosis not in diagnoses[code], name, line, "duplicate procedure_code/icd10cm_code")
        diagnoses[code].add(diagnosis)
    return {code: NcdRule(*heads[code][:2], code, frozenset(dx), heads[code][2]) for code, dx in diagnoses.items()}


def _single(values: set[str], name: str, what: str) -> str:
    if len(values) != 1:
        raise CodingDataError(f"{name}: every row must have the same {what}")
    return next(iter(values))


def build(ptp_text: str, mue_text: str, icd_text: str, ncd_text: str) -> CodingReference:
    """The reference from the four files' texts (checked; raises CodingDataError naming the file)."""
    ptp = parse_ptp(ptp_text)
    mue = parse_mue(mue_text)
    icd = parse_icd(icd_text)
    ncd = parse_ncd(ncd_text, icd)
    by_column_1: dict[str, list[PtpEdit]] = defaultdict(list)
    for edit in ptp:
        by_column_1[edit.column_1].append(edit)
    ptp_version = _single({f"{e.table} {e.version} ({e.quarter})" for e in ptp}, "ncci_ptp_practitioner.csv", "version")
    mue_version = _single({f"{m.table} ({m.quarter})" for m in mue.values()}, "ncci_mue_practitioner.csv", "quarter")
    release = _single({c.release for c in icd.values()}, "icd10cm_codes.csv", "release")
    ncds = ", ".join(sorted({rule.ncd for rule in ncd.values()}))
    return CodingReference(
        ptp=ptp,
        ptp_by_column_1={code: tuple(rows) for code, rows in by_column_1.items()},
        mue=mue,
        icd=icd,
        icd_categories=frozenset(code for code in icd if len(code) == 3),
        icd_release=release,
        ncd=ncd,
        versions={
            "NCCI PTP": ptp_version,
            "NCCI MUE": mue_version,
            "ICD-10-CM": release,
            "NCD lab": ncds,
        },
    )


def load(directory: Path = CODING_DIR) -> CodingReference:
    def text(name: str) -> str:
        return (directory / name).read_text(encoding="utf-8")

    return build(
        text("ncci_ptp_practitioner.csv"),
        text("ncci_mue_practitioner.csv"),
        text("icd10cm_codes.csv"),
        text("ncd_lab_diagnoses.csv"),
    )


#: the shipped extracts, read once
REFERENCE = load()
