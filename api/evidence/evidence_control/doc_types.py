"""The kinds of evidence document, and a guess at the kind from the text (pure, no I/O).

A document's `doc_type` is given at attach (one of `DOC_TYPES`); when it is not, `infer` picks the
type whose keywords occur most often in the text and title, and `other` when none does. The
keywords are data (`KEYWORDS`), matched case-insensitively on word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, get_args

DocType = Literal[
    "clinical_notes",
    "medical_records",
    "physician_letter",
    "payer_policy",
    "authorization_proof",
    "proof_of_submission",
    "corrected_codes",
    "coding_documentation",
    "eligibility_verification",
    "insurance_card",
    "registration_correction",
    "itemized_bill",
    "remittance_advice",
    "prior_payer_eob",
    "credentialing_proof",
    "contract_terms",
    "correspondence",
    "other",
]
DOC_TYPES: tuple[str, ...] = get_args(DocType)

KEYWORDS: Mapping[str, tuple[str, ...]] = {
    "clinical_notes": (
        "progress note",
        "clinical note",
        "history and physical",
        "h&p",
        "assessment and plan",
        "chief complaint",
        "discharge summary",
        "operative report",
        "nursing note",
    ),
    "medical_records": ("medical record", "lab results", "radiology report", "pathology report", "imaging"),
    "physician_letter": (
        "letter of medical necessity",
        "medically necessary",
        "to whom it may concern",
        "i am writing",
        "attending physician",
        "sincerely",
    ),
    "payer_policy": (
        "medical policy",
        "coverage policy",
        "clinical policy",
        "lcd",
        "ncd",
        "local coverage determination",
        "national coverage determination",
        "policy number",
    ),
    "authorization_proof": (
        "prior authorization",
        "authorization number",
        "auth number",
        "pre-certification",
        "precertification",
        "referral number",
        "approved authorization",
    ),
    "proof_of_submission": (
        "clearinghouse",
        "acceptance report",
        "999",
        "277ca",
        "submission date",
        "proof of timely filing",
        "electronic claim acknowledgment",
        "certified mail",
    ),
    "corrected_codes": ("corrected claim", "replacement claim", "frequency code 7", "resubmission code"),
    "coding_documentation": ("cpt", "icd-10", "hcpcs", "modifier", "coding guideline", "ncci", "coder"),
    "eligibility_verification": (
        "eligibility",
        "270/271",
        "271 response",
        "coverage verified",
        "benefits verification",
        "active coverage",
    ),
    "insurance_card": ("insurance card", "member card", "group number", "rx bin"),
    "registration_correction": ("registration", "demographic", "face sheet", "patient information form"),
    "itemized_bill": ("itemized bill", "itemized statement", "ub-04", "cms-1500", "charge detail"),
    "remittance_advice": ("remittance advice", "explanation of payment", "era", "835", "claim adjustment reason"),
    "prior_payer_eob": ("explanation of benefits", "eob", "primary payer", "coordination of benefits"),
    "credentialing_proof": ("credentialing", "enrollment", "npi", "caqh", "provider enrollment", "effective date"),
    "contract_terms": ("agreement", "fee schedule", "reimbursement terms", "contract", "amendment"),
    "correspondence": ("dear", "re:", "regards", "correspondence", "fax cover"),
}
_PATTERNS: Mapping[str, re.Pattern[str]] = {
    kind: re.compile(
        r"(?<![A-Za-z0-9])(?:" + "|".join(re.escape(k) for k in words) + r")(?![A-Za-z0-9])", re.IGNORECASE
    )
    for kind, words in KEYWORDS.items()
}
_SAMPLE = 200_000


def infer(text: str | None, title: str | None = None) -> str:
    """The document type whose keywords occur most often (ties: the order of `DOC_TYPES`), else 'other'."""
    sample = f"{title or ''}\n{(text or '')[:_SAMPLE]}"
    best, best_hits = "other", 0
    for kind in DOC_TYPES:
        pattern = _PATTERNS.get(kind)
        hits = len(pattern.findall(sample)) if pattern is not None else 0
        if hits > best_hits:
            best, best_hits = kind, hits
    return best
