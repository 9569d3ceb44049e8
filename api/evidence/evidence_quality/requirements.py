"""What evidence an appeal needs, per denial category: data, not code (pure, no I/O).

The categories are those of the reference seed ``dbt_project/seeds/reference/denial_categories.csv``
(``DenialCase.denial_category``); a test checks every one of them is here. A category not listed
(or a case without one) uses `DEFAULT`. `required` types decide completeness; `recommended` ones
add to strength (see `scoring.py`). `GAP_SENTENCES` says, per document type, what to attach.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Requirement:
    required: tuple[str, ...]
    recommended: tuple[str, ...] = ()


DEFAULT_KEY = "default"
DEFAULT = Requirement(required=("remittance_advice", "clinical_notes"), recommended=("correspondence",))

REQUIREMENTS: Mapping[str, Requirement] = {
    "eligibility": Requirement(("eligibility_verification", "insurance_card"), ("registration_correction",)),
    "registration": Requirement(("registration_correction", "insurance_card"), ("eligibility_verification",)),
    "authorization": Requirement(("authorization_proof",), ("clinical_notes", "physician_letter")),
    "coding": Requirement(("corrected_codes", "coding_documentation"), ("clinical_notes",)),
    "bundling": Requirement(("coding_documentation", "clinical_notes"), ("payer_policy",)),
    "medical_necessity": Requirement(
        ("clinical_notes", "payer_policy", "physician_letter"), ("medical_records", "authorization_proof")
    ),
    "non_covered": Requirement(("payer_policy", "physician_letter"), ("clinical_notes",)),
    "timely_filing": Requirement(("proof_of_submission",), ("correspondence", "remittance_advice")),
    "duplicate": Requirement(("itemized_bill", "clinical_notes"), ("remittance_advice",)),
    "missing_information": Requirement(("medical_records",), ("correspondence",)),
    "credentialing": Requirement(("credentialing_proof",), ("contract_terms",)),
    "coordination_of_benefits": Requirement(("prior_payer_eob", "insurance_card"), ("eligibility_verification",)),
    "other": DEFAULT,
    "patient_responsibility": Requirement(("remittance_advice",), ("eligibility_verification",)),
    "contractual": Requirement(("contract_terms", "remittance_advice"), ("itemized_bill",)),
    "unclassified": DEFAULT,
}

GAP_SENTENCES: Mapping[str, str] = {
    "clinical_notes": "Attach the clinical notes for the date of service (progress notes, H&P, discharge summary).",
    "medical_records": "Attach the medical records the payer asked for (labs, imaging, reports).",
    "physician_letter": "Attach a letter from the treating physician explaining why the service was necessary.",
    "payer_policy": "Attach the payer's coverage policy (LCD/NCD or medical policy) and show how the service meets it.",
    "authorization_proof": "Attach the authorization or referral approval (number, dates, approved services).",
    "proof_of_submission": "Attach proof of timely submission (clearinghouse acceptance report, 999/277CA, mail receipt).",
    "corrected_codes": "Attach the corrected claim or code set (replacement claim, frequency code 7).",
    "coding_documentation": "Attach the coding documentation supporting the codes and modifiers billed.",
    "eligibility_verification": "Attach the eligibility verification for the date of service (271 response or portal print).",
    "insurance_card": "Attach a copy of the insurance card (front and back) valid on the date of service.",
    "registration_correction": "Attach the corrected registration / demographic record (face sheet).",
    "itemized_bill": "Attach the itemized bill showing each service with its date and charge.",
    "remittance_advice": "Attach the remittance advice (ERA/EOP) with the denial codes.",
    "prior_payer_eob": "Attach the primary payer's explanation of benefits.",
    "credentialing_proof": "Attach proof of the provider's enrollment or credentialing on the date of service.",
    "contract_terms": "Attach the contract terms or fee schedule the payment should follow.",
    "correspondence": "Attach the correspondence with the payer about this claim.",
    "other": "Attach any other document that supports the appeal.",
}


def requirement_for(category: str | None) -> tuple[str, Requirement]:
    """(the key used, the requirement) for a denial category; unknown or missing: the default."""
    if category and category in REQUIREMENTS:
        return category, REQUIREMENTS[category]
    return DEFAULT_KEY, DEFAULT
