"""The generator's own CARC table: the codes it writes and what it means by each.

Written by hand here, on purpose not read from the project's reference tables or classifier:
the ground truth must come from the generator's own model, so that a wrong row in the
project's classification shows up as a difference instead of being copied into the truth.

Meanings follow the public Claim Adjustment Reason Code list (X12 / Washington Publishing
Company, "Claim Adjustment Reason Codes"), shortened; the category is the generator's reading
of that meaning in the project's category vocabulary (eligibility, coding, ...).  ``is_denial``
says whether the generator means the code as a refusal to pay for a service, as opposed to a
contractual reduction, a patient share or a coordination-of-benefits adjustment.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CarcMeaning:
    """What the generator means by one CARC."""

    carc: str
    summary: str
    category: str
    is_denial: bool


def _table(*rows: tuple[str, str, str, bool]) -> dict[str, CarcMeaning]:
    return {code: CarcMeaning(code, summary, category, denial) for code, summary, category, denial in rows}


CARC_TABLE: dict[str, CarcMeaning] = _table(
    # denials (the public list's wording, shortened)
    ("27", "Expenses incurred after coverage terminated", "eligibility", True),
    ("31", "Patient cannot be identified as our insured", "eligibility", True),
    ("26", "Expenses incurred prior to coverage", "eligibility", True),
    ("109", "Claim or service not covered by this payer; send to the correct payer", "eligibility", True),
    ("140", "Patient/insured health identification number and name do not match", "eligibility", True),
    ("177", "Patient has not met the required eligibility requirements", "eligibility", True),
    ("13", "The date of death precedes the date of service", "registration", True),
    ("14", "The date of birth follows the date of service", "registration", True),
    ("16", "Claim/service lacks information or has submission/billing error(s)", "missing_information", True),
    ("252", "An attachment/other documentation is required to adjudicate", "missing_information", True),
    (
        "226",
        "Information requested from the provider was not provided or was insufficient",
        "missing_information",
        True,
    ),
    ("125", "Submission/billing error(s)", "missing_information", True),
    ("197", "Precertification/authorization/notification/pre-treatment absent", "authorization", True),
    ("15", "The authorization number is missing, invalid, or does not apply", "authorization", True),
    ("288", "Referral absent", "authorization", True),
    ("198", "Precertification/notification/authorization/pre-treatment exceeded", "authorization", True),
    ("39", "Services denied at the time authorization/pre-certification was requested", "authorization", True),
    ("50", "Non-covered: not deemed a medical necessity by the payer", "medical_necessity", True),
    ("150", "Information submitted does not support this level of service", "medical_necessity", True),
    ("151", "Information submitted does not support this many/frequency of services", "medical_necessity", True),
    ("167", "This (these) diagnosis(es) is (are) not covered", "medical_necessity", True),
    ("4", "Procedure code inconsistent with the modifier used, or a modifier is missing", "coding", True),
    ("11", "The diagnosis is inconsistent with the procedure", "coding", True),
    ("181", "Procedure code was invalid on the date of service", "coding", True),
    ("146", "Diagnosis was invalid for the date(s) of service reported", "coding", True),
    ("97", "Included in the allowance for another service already adjudicated", "bundling", True),
    ("236", "Procedure or procedure/modifier combination not compatible (NCCI)", "bundling", True),
    ("234", "This procedure is not paid separately", "bundling", True),
    ("29", "The time limit for filing has expired", "timely_filing", True),
    ("18", "Exact duplicate claim/service", "duplicate", True),
    ("B13", "Previously paid; payment for this claim/service may have been in a previous payment", "duplicate", True),
    ("96", "Non-covered charge(s)", "non_covered", True),
    ("204", "Service/equipment/drug not covered under the patient's current benefit plan", "non_covered", True),
    ("49", "Routine/preventive exam or service not covered", "non_covered", True),
    ("185", "The rendering provider is not eligible to perform the service billed", "credentialing", True),
    ("B7", "This provider was not certified/eligible to be paid for this service on this date", "credentialing", True),
    ("208", "National Provider Identifier - not matched", "credentialing", True),
    ("22", "This care may be covered by another payer per coordination of benefits", "coordination_of_benefits", True),
    ("129", "Prior processing information appears incorrect", "coordination_of_benefits", True),
    # not denials: patient share, contract reductions, prior payer, predetermination
    ("1", "Deductible amount", "patient_responsibility", False),
    ("2", "Coinsurance amount", "patient_responsibility", False),
    ("3", "Co-payment amount", "patient_responsibility", False),
    (
        "45",
        "Charge exceeds fee schedule/maximum allowable or contracted/legislated fee arrangement",
        "contractual",
        False,
    ),
    ("253", "Sequestration - reduction in federal payment", "contractual", False),
    ("59", "Processed based on multiple or concurrent procedure rules", "contractual", False),
    ("131", "Claim specific negotiated discount", "contractual", False),
    ("94", "Processed in excess of charges", "contractual", False),
    (
        "23",
        "The impact of prior payer(s) adjudication including payments and/or adjustments",
        "coordination_of_benefits",
        False,
    ),
    ("101", "Predetermination: anticipated payment upon completion of services or claim adjudication", "other", False),
)

#: Codes the generator writes as adjustments nobody's code list contains (the "unknown CARC" situation);
#: syntactically valid CAS02 values, absent from the public list.
UNKNOWN_CARCS: tuple[str, ...] = ("Z91", "Z92", "Q77")

#: Denials a payer raises on post-payment review when it takes a payment back (recoupment).
RECOUPMENT_CARCS: tuple[str, ...] = ("50", "22", "B13", "151")


def denial_categories() -> frozenset[str]:
    """The categories of the generator's denial codes."""
    return frozenset(m.category for m in CARC_TABLE.values() if m.is_denial)


def denial_carcs() -> frozenset[str]:
    """The generator's denial codes."""
    return frozenset(k for k, m in CARC_TABLE.items() if m.is_denial)
