"""Detects PHI-like content in a webhook payload, so billing events carrying it are refused.

Billing events are about organizations and money; a field named like patient
data, or a value shaped like a Social Security number, means the sender
mixed clinical data in. Findings carry JSON paths and key names, never values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Keys compared after lower-casing and dropping every non-alphanumeric character.
PHI_KEYS: frozenset[str] = frozenset(
    {
        "patient",
        "patients",
        "patientname",
        "patientid",
        "patientfirstname",
        "patientlastname",
        "memberid",
        "membernumber",
        "subscriberid",
        "subscribernumber",
        "dob",
        "dateofbirth",
        "birthdate",
        "birthday",
        "ssn",
        "socialsecurity",
        "socialsecuritynumber",
        "diagnosis",
        "diagnoses",
        "diagnosiscode",
        "diagnosiscodes",
        "dx",
        "icd10",
        "icd10code",
        "icd10codes",
        "icd",
        "icd9",
        "mrn",
        "medicalrecordnumber",
    }
)
# Fragments that mark a key as PHI wherever they appear in the normalised key.
PHI_FRAGMENTS: tuple[str, ...] = (
    "patient",
    "dateofbirth",
    "birthdate",
    "socialsecurity",
    "diagnos",
    "icd10",
    "memberid",
    "subscriberid",
    "medicalrecord",
)
# Short codes only count as whole words (so "classname" is not an "ssn").
PHI_WORDS: frozenset[str] = frozenset({"ssn", "dob", "mrn", "dx", "icd", "icd10"})

SSN_PATTERN = re.compile(r"(?<!\d)\d{3}[- ]\d{2}[- ]\d{4}(?!\d)")
BARE_SSN = re.compile(r"\d{9}")
REDACTED = "[redacted]"


def normalise_key(key: str) -> str:
    """`Date-Of_Birth` -> `dateofbirth`."""
    return re.sub(r"[^0-9a-z]", "", key.lower())


def key_words(key: str) -> list[str]:
    """`patientDOB`/`patient_dob` -> ["patient", "dob"]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [w for w in re.split(r"[^0-9a-zA-Z]+", spaced.lower()) if w]


def is_phi_key(key: str) -> bool:
    norm = normalise_key(key)
    if norm in PHI_KEYS or any(f in norm for f in PHI_FRAGMENTS):
        return True
    return any(w in PHI_WORDS for w in key_words(key))


def looks_like_ssn(text: str) -> bool:
    return bool(SSN_PATTERN.search(text)) or bool(BARE_SSN.fullmatch(text.strip()))


@dataclass(frozen=True)
class Finding:
    """One PHI-like spot: a key named like PHI (`key` set) or an SSN-shaped string/key (`key` None)."""

    path: str  # JSON path; segments that look like SSNs are redacted
    key: str | None


def find_phi(value: Any, path: str = "$") -> list[Finding]:
    """Every PHI-like key and SSN-shaped string in a parsed JSON document, depth first."""
    found: list[Finding] = []
    if isinstance(value, dict):
        for raw_key, child in value.items():
            key = str(raw_key)
            ssn_key = looks_like_ssn(key)
            child_path = f"{path}.{REDACTED if ssn_key else key}"
            if ssn_key:
                found.append(Finding(child_path, None))
            elif is_phi_key(key):
                found.append(Finding(child_path, key))
            else:
                found.extend(find_phi(child, child_path))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found.extend(find_phi(child, f"{path}[{i}]"))
    elif isinstance(value, str) and looks_like_ssn(value):
        found.append(Finding(path, None))
    return found
