"""The built-in recovery actions and the cost of an hour of work (pure, no I/O).

Every action has a slug key, a label, a kind (the recovery strategies of ``caseRecovery.setPlan``:
appeal, corrected_claim, rebill_other_payer, payer_call, patient_billing, write_off), a default effort in
hours of a specialist's work, the reason for that figure (an ``ASSUMPTION`` unless a source is cited),
and the denial categories it applies to (the ``denial_categories`` reference seed,
``dbt_project/seeds/reference/denial_categories.csv``).

Sources for what each action is:
- appeal levels: a payer's first- and second-level internal appeal (Medicare: redetermination and
  reconsideration, 42 CFR 405.940 and 405.960); external review by an independent review organization
  (ACA, 45 CFR 147.136(d): claims involving medical judgment, e.g. medical necessity, setting, level of care);
- corrected claim: a replacement claim, X12 837 CLM05-3 / NUBC UB-04 bill type frequency code 7;
- reopening: correcting a clerical error or minor omission without an appeal (42 CFR 405.980; CMS
  Medicare Claims Processing Manual, chapter 34);
- peer-to-peer: the treating physician discusses a medical necessity or authorization denial with the
  payer's medical reviewer (AMA prior authorization and utilization management reform principles);
- patient billing: the patient's share (CAS group PR, X12 835 TR3; HFMA patient financial communications
  best practices);
- write-off: the balance is judged not worth pursuing (HFMA MAP Keys: final denial write-offs).

The effort hours are assumptions for a client to replace with its own figures (a client's own action with
another key; built-in keys cannot be redefined, see ``service.upsert``). The worklist's typical appeal
effort (``human_attention.priority.DEFAULT_EFFORT_HOURS``, 1.5 hours) anchors the first-level appeal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, get_args

ASSUMPTION = "ASSUMPTION"
KINDS: tuple[str, ...] = (
    "appeal",
    "corrected_claim",
    "rebill_other_payer",
    "payer_call",
    "patient_billing",
    "write_off",
)
#: The denial categories of the reference seed (``denial_categories.csv``): the thirteen denials, then
#: the non-denial adjustments an action may still apply to.
DenialCategory = Literal[
    "eligibility",
    "registration",
    "authorization",
    "coding",
    "bundling",
    "medical_necessity",
    "non_covered",
    "timely_filing",
    "duplicate",
    "missing_information",
    "credentialing",
    "coordination_of_benefits",
    "other",
]
#: The categories an action may apply to: the denials, then the non-denial adjustments (wire type and list).
Category = Literal[DenialCategory, "patient_responsibility", "contractual", "unclassified"]
DENIAL_CATEGORIES: tuple[str, ...] = get_args(DenialCategory)
CATEGORIES: tuple[str, ...] = get_args(Category)
KEY_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_KEY_LENGTH = 40

#: ASSUMPTION: the loaded cost of one hour of a denial specialist's work, in USD. Replace it with the
#: organization's own figure. Order of magnitude: the HFMA / Change Healthcare average cost to rework or
#: appeal a denied hospital claim, $118 (``cost_assumptions.csv``), over about three hours of work.
COST_PER_HOUR = Decimal("40.00")


@dataclass(frozen=True)
class BuiltIn:
    key: str
    label: str
    kind: str
    effort_hours: Decimal
    effort_rationale: str
    applies_to: tuple[str, ...]


BUILT_INS: tuple[BuiltIn, ...] = (
    BuiltIn(
        "appeal-level-1",
        "First-level appeal",
        "appeal",
        Decimal("1.5"),
        f"{ASSUMPTION}: the worklist's typical hours to work one appeal (human_attention.priority)",
        DENIAL_CATEGORIES,
    ),
    BuiltIn(
        "appeal-level-2",
        "Second-level appeal",
        "appeal",
        Decimal("2.0"),
        f"{ASSUMPTION}: a first-level appeal plus reviewing the first decision and adding evidence",
        DENIAL_CATEGORIES,
    ),
    BuiltIn(
        "external-review",
        "External review",
        "appeal",
        Decimal("3.0"),
        f"{ASSUMPTION}: a full packet for an independent review organization (45 CFR 147.136(d))",
        ("authorization", "medical_necessity", "non_covered"),
    ),
    BuiltIn(
        "corrected-claim",
        "Corrected claim",
        "corrected_claim",
        Decimal("0.5"),
        f"{ASSUMPTION}: fix the claim data and resubmit (bill type frequency 7); no letter",
        ("eligibility", "registration", "coding", "bundling", "missing_information", "coordination_of_benefits"),
    ),
    BuiltIn(
        "reopening",
        "Reopening",
        "corrected_claim",
        Decimal("0.5"),
        f"{ASSUMPTION}: a clerical correction requested from the payer (42 CFR 405.980)",
        ("registration", "coding", "duplicate", "missing_information"),
    ),
    BuiltIn(
        "peer-to-peer",
        "Peer-to-peer review",
        "appeal",
        Decimal("1.0"),
        f"{ASSUMPTION}: scheduling and a short physician-to-reviewer call",
        ("authorization", "medical_necessity"),
    ),
    BuiltIn(
        "payer-call",
        "Payer call",
        "payer_call",
        Decimal("0.5"),
        f"{ASSUMPTION}: one call to the payer's provider line, hold time included",
        DENIAL_CATEGORIES,
    ),
    BuiltIn(
        "patient-billing",
        "Bill the patient",
        "patient_billing",
        Decimal("0.25"),
        f"{ASSUMPTION}: a statement from the patient accounting system",
        ("non_covered", "patient_responsibility"),
    ),
    BuiltIn(
        "write-off",
        "Write off",
        "write_off",
        Decimal("0.1"),
        f"{ASSUMPTION}: an adjustment posted with its reason",
        CATEGORIES,
    ),
)
BY_KEY: dict[str, BuiltIn] = {b.key: b for b in BUILT_INS}


def effort_cost(hours: Decimal, cost_per_hour: Decimal = COST_PER_HOUR) -> Decimal:
    """What `hours` of work cost, to the cent."""
    return (hours * cost_per_hour).quantize(Decimal("0.01"))


def check_key(key: str) -> str | None:
    """Why `key` is not a valid action key (lower-case words joined by hyphens), or None."""
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not KEY_PATTERN.match(key):
        return f"an action key is lower-case letters and digits joined by hyphens, at most {MAX_KEY_LENGTH} characters"
    return None
