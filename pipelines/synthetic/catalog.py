"""Built-in fictional world of the generator: payers, facilities, services, people.

Every name here is invented (no real insurer, hospital or person).  Money is
in integer cents.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Payer:
    """A fictional payer with its contract terms and payment habits."""

    key: str
    name: str
    payer_id: str
    kind: str  # medicare | medicaid | commercial | hmo
    filing_p: str  # CLP06 / SBR09 for professional claims
    filing_i: str  # ... for institutional claims
    fee_pct: int  # contract = Medicare-like base rate x fee_pct / 100
    charge_bp: int  # > 0: contract is this many basis points of charges instead of a fee schedule
    days_to_pay: int
    denial_factor: float  # relative propensity to deny (normalised over the mix)
    appeal_days: int
    volume_weight: int
    pay_weekday: int  # 0 = Monday
    tin: str
    city: str
    state: str
    zip: str


PAYERS: tuple[Payer, ...] = (
    Payer(
        "medicare",
        "FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99",
        "99901",
        "medicare",
        "MB",
        "MA",
        100,
        0,
        16,
        0.75,
        120,
        30,
        2,
        "990000001",
        "PORTSMOUTH",
        "NH",
        "03801",
    ),
    Payer(
        "medicaid",
        "STATE MEDICAID FISCAL AGENT",
        "99902",
        "medicaid",
        "MC",
        "MC",
        80,
        0,
        28,
        1.35,
        90,
        18,
        3,
        "990000002",
        "SPRINGFIELD",
        "IL",
        "62701",
    ),
    Payer(
        "northwind",
        "NORTHWIND HEALTH PLAN",
        "99903",
        "commercial",
        "CI",
        "CI",
        145,
        0,
        21,
        1.05,
        180,
        14,
        1,
        "990000003",
        "DENVER",
        "CO",
        "80202",
    ),
    Payer(
        "bluepeak",
        "BLUEPEAK MUTUAL INSURANCE",
        "99904",
        "commercial",
        "CI",
        "CI",
        0,
        6200,
        24,
        0.95,
        180,
        11,
        4,
        "990000004",
        "OMAHA",
        "NE",
        "68102",
    ),
    Payer(
        "harborview",
        "HARBORVIEW CARE HMO",
        "99905",
        "hmo",
        "HM",
        "HM",
        120,
        0,
        30,
        1.25,
        60,
        9,
        0,
        "990000005",
        "BOSTON",
        "MA",
        "02110",
    ),
    Payer(
        "cedarline",
        "CEDARLINE ASSURANCE COMPANY",
        "99906",
        "commercial",
        "CI",
        "CI",
        160,
        0,
        19,
        1.00,
        180,
        7,
        2,
        "990000006",
        "HARTFORD",
        "CT",
        "06103",
    ),
    Payer(
        "summitcare",
        "SUMMITCARE HEALTH NETWORK",
        "99907",
        "hmo",
        "HM",
        "HM",
        0,
        5500,
        35,
        1.15,
        90,
        6,
        3,
        "990000007",
        "PHOENIX",
        "AZ",
        "85004",
    ),
    Payer(
        "lakeshore",
        "LAKESHORE BENEFIT ADMINISTRATORS",
        "99908",
        "commercial",
        "CI",
        "CI",
        135,
        0,
        26,
        0.90,
        180,
        5,
        1,
        "990000008",
        "MADISON",
        "WI",
        "53703",
    ),
)

FACILITY_TOWNS: tuple[tuple[str, str, str], ...] = (
    ("RIVERSIDE", "OH", "43215"),
    ("MAPLE GROVE", "MN", "55369"),
    ("CEDAR FALLS", "IA", "50613"),
    ("HIGHLAND PARK", "MI", "48203"),
    ("FAIRVIEW", "TN", "37062"),
    ("GREENFIELD", "IN", "46140"),
    ("CLEARWATER", "KS", "67026"),
    ("OAK RIDGE", "NC", "27310"),
    ("LAKEVIEW", "OR", "97630"),
    ("STONEBRIDGE", "PA", "15001"),
    ("WILLOW CREEK", "CA", "95573"),
    ("PINE BLUFF", "WY", "82082"),
)
FACILITY_KINDS = ("GENERAL HOSPITAL", "MEDICAL CENTER", "COMMUNITY HOSPITAL", "REGIONAL HEALTH")


@dataclass(frozen=True, slots=True)
class Facility:
    """A fictional hospital (the billing provider and payee)."""

    code: str
    name: str
    npi: str
    tin: str
    city: str
    state: str
    zip: str


def npi_with_check_digit(base9: str) -> str:
    """Append the Luhn check digit (with the 80840 prefix rule) to a 9-digit NPI base."""
    digits = [int(d) for d in "80840" + base9]
    total = 0
    for i, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if i % 2 == 0 else digit  # Luhn: double every second digit from the right
        total += doubled - 9 if doubled > 9 else doubled
    return base9 + str((10 - total % 10) % 10)


def build_facilities(n: int) -> tuple[Facility, ...]:
    """The first ``n`` fictional facilities (deterministic)."""
    out = []
    for i in range(n):
        city, state, zip_code = FACILITY_TOWNS[i % len(FACILITY_TOWNS)]
        kind = FACILITY_KINDS[i % len(FACILITY_KINDS)]
        code = "".join(w[0] for w in city.split())[:2].ljust(2, "X") + f"{i + 1:02d}"
        out.append(
            Facility(
                code,
                f"{city} {kind}",
                npi_with_check_digit(f"1{i + 1:03d}45678"[:9]),
                f"88{i + 1:07d}",
                city,
                state,
                zip_code,
            )
        )
    return tuple(out)


MAX_FACILITIES = len(FACILITY_TOWNS)


@dataclass(frozen=True, slots=True)
class Service:
    """A chargemaster item: procedure and/or revenue code, price and Medicare-like rate."""

    code: str  # HCPCS/CPT ("" for revenue-code-only institutional lines)
    revenue: str  # UB-04 revenue code for institutional lines
    charge: int  # chargemaster price per unit, cents
    base_rate: int  # Medicare-like allowed per unit, cents
    needs_auth: bool
    max_units: int
    kind: str  # em | proc | lab | img | ther | room | drug
    # The generator's own service-line label, written by hand (never read from the project's tables):
    # the AMA CPT code-set sections (Evaluation and Management 99202-99499, Surgery 10004-69990,
    # Radiology 70010-79999, Pathology and Laboratory 80047-89398, Medicine 90281-99607) and, for
    # lines without a CPT, the NUBC UB-04 revenue-code groups (012X room and board, 025X/063X drugs).
    # HCPCS Level II J-codes (drugs administered other than oral) join the revenue group "drugs".
    # One exception on purpose: 36415 (venipuncture) sits in the CPT Surgery section but is billed with the
    # laboratory (revenue 030X) it serves, so it is labelled laboratory as hospital service lines do.
    line: str  # evaluation_management | laboratory | medicine | radiology | surgery | drugs | room_and_board


SERVICE_LINES: tuple[str, ...] = (
    "evaluation_management",
    "laboratory",
    "medicine",
    "radiology",
    "surgery",
    "drugs",
    "room_and_board",
)


SERVICES: dict[str, Service] = {
    s.code or s.revenue: s
    for s in (
        Service("99203", "0510", 22500, 11000, False, 1, "em", "evaluation_management"),
        Service("99213", "0510", 16500, 9200, False, 1, "em", "evaluation_management"),
        Service("99214", "0510", 24500, 13100, False, 1, "em", "evaluation_management"),
        Service("99284", "0450", 98000, 17500, False, 1, "em", "evaluation_management"),
        Service("99285", "0450", 165000, 25800, False, 1, "em", "evaluation_management"),
        Service("36415", "0300", 2800, 300, False, 1, "lab", "laboratory"),
        Service("80053", "0300", 9800, 1050, False, 1, "lab", "laboratory"),
        Service("85025", "0305", 6200, 780, False, 1, "lab", "laboratory"),
        Service("93000", "0730", 11000, 1700, False, 1, "proc", "medicine"),
        Service("71046", "0320", 24000, 3400, False, 1, "img", "radiology"),
        Service("70450", "0350", 185000, 11200, False, 1, "img", "radiology"),
        Service("72148", "0610", 310000, 22400, True, 1, "img", "radiology"),
        Service("70553", "0610", 395000, 34800, True, 1, "img", "radiology"),
        Service("29881", "0360", 820000, 118000, True, 1, "proc", "surgery"),
        Service("45378", "0750", 310000, 38500, True, 1, "proc", "surgery"),
        Service("20610", "0510", 36000, 6300, False, 1, "proc", "surgery"),
        Service("97110", "0420", 12500, 2900, False, 4, "ther", "medicine"),
        Service("J1885", "0636", 4500, 120, False, 2, "drug", "drugs"),
        Service("", "0250", 18000, 4000, False, 3, "drug", "drugs"),
        Service("", "0120", 310000, 120000, False, 5, "room", "room_and_board"),
    )
}

PROFESSIONAL_MENU = (
    "99213",
    "99214",
    "99203",
    "99284",
    "99285",
    "36415",
    "80053",
    "85025",
    "93000",
    "71046",
    "70450",
    "72148",
    "70553",
    "29881",
    "45378",
    "20610",
    "97110",
)
PROFESSIONAL_WEIGHTS = (30, 22, 6, 5, 3, 10, 8, 8, 5, 6, 3, 3, 2, 1, 2, 3, 6)
OUTPATIENT_MENU = (
    "99284",
    "99285",
    "80053",
    "85025",
    "36415",
    "71046",
    "70450",
    "72148",
    "70553",
    "29881",
    "45378",
    "93000",
    "J1885",
    "0250",
    "97110",
)
OUTPATIENT_WEIGHTS = (14, 8, 12, 12, 10, 8, 6, 4, 3, 2, 3, 6, 5, 6, 4)
INPATIENT_EXTRA = ("80053", "85025", "71046", "0250", "J1885", "93000")

DIAGNOSES = (
    "I10",
    "E119",
    "E785",
    "J069",
    "M545",
    "R079",
    "K219",
    "N390",
    "R109",
    "J189",
    "I480",
    "F419",
    "M179",
    "Z0000",
    "R0602",
    "S8391XA",
    "M25561",
    "G4733",
    "E039",
    "J45909",
)

FIRST_NAMES = (
    "AVERY",
    "JORDAN",
    "MORGAN",
    "CASEY",
    "RILEY",
    "TAYLOR",
    "QUINN",
    "ROWAN",
    "SKYLER",
    "HARPER",
    "ELLIS",
    "MARLOWE",
    "TATUM",
    "REESE",
    "SAWYER",
    "EMERSON",
    "FINLEY",
    "HAYDEN",
    "JUNE",
    "LANE",
    "PARKER",
    "BLAIR",
    "DALLAS",
    "SHILOH",
    "WREN",
    "ARDEN",
    "BRIAR",
    "CORIN",
)
LAST_NAMES = (
    "ASHWORTH",
    "BRIGHTWATER",
    "CALLOWAY",
    "DUNMORE",
    "ELDERIDGE",
    "FAIRCLOTH",
    "GALLOWAY",
    "HOLLOWAY",
    "IRONWOOD",
    "JESSAMINE",
    "KETTERING",
    "LOCKWOOD",
    "MERRIWEATHER",
    "NETHERBY",
    "OAKHURST",
    "PENDLETON",
    "QUILLFEATHER",
    "ROOKWOOD",
    "STILLWATER",
    "THORNBURY",
    "UNDERHILL",
    "VANTERPOOL",
    "WHITLOCK",
    "YARBOROUGH",
    "ZELLWEGER",
    "BRAMBLEFORD",
)
STREETS = ("MAPLE AVE", "ELM ST", "HARBOR RD", "SUMMIT DR", "BIRCH LN", "MILL ST", "CANAL WAY", "ORCHARD CT")

# Root-cause mix of initial denials (shares of denied claims).  Categories the
# generator's CARC table (carcs.py) does not define are dropped and the rest renormalised.
CATEGORY_SHARES: dict[str, float] = {
    "eligibility": 0.25,
    "registration": 0.03,
    "missing_information": 0.17,
    "authorization": 0.14,
    "medical_necessity": 0.11,
    "coding": 0.09,
    "bundling": 0.05,
    "timely_filing": 0.04,
    "duplicate": 0.04,
    "non_covered": 0.04,
    "credentialing": 0.02,
    "coordination_of_benefits": 0.02,
}

# Preferred CARCs per category (weights); codes missing from the map are skipped
# and the category falls back to every denial CARC the CARC table gives it.
CARC_PREFERENCES: dict[str, dict[str, int]] = {
    "eligibility": {"27": 35, "31": 30, "26": 10, "109": 10, "140": 8, "177": 7},
    "registration": {"13": 50, "14": 50},
    "missing_information": {"16": 70, "252": 15, "226": 10, "125": 5},
    "authorization": {"197": 60, "15": 15, "288": 10, "198": 10, "39": 5},
    "medical_necessity": {"50": 70, "150": 10, "151": 10, "167": 10},
    "coding": {"4": 30, "11": 30, "181": 20, "146": 20},
    "bundling": {"97": 60, "236": 25, "234": 15},
    "timely_filing": {"29": 100},
    "duplicate": {"18": 90, "B13": 10},
    "non_covered": {"96": 50, "204": 40, "49": 10},
    "credentialing": {"185": 40, "B7": 30, "208": 30},
    "coordination_of_benefits": {"22": 80, "129": 20},
}

RARCS_FOR_CARC: dict[str, tuple[str, ...]] = {
    "16": ("N290", "MA130", "M127", "N4"),
    "252": ("N706", "M127"),
    "226": ("N179",),
    "125": ("MA130",),
    "197": ("N54",),
    "15": ("N54",),
    "198": ("N54",),
    "27": ("N30",),
    "31": ("N30",),
    "26": ("N30",),
    "109": ("N418",),
    "177": ("N30",),
    "50": ("N115", "N386"),
    "167": ("N386",),
    "151": ("N362",),
    "29": ("N211",),
    "18": ("M86",),
    "97": ("M15", "N20"),
    "234": ("N20",),
    "96": ("N130",),
    "204": ("N130",),
    "22": ("MA04",),
    "11": ("M76",),
    "4": ("M114",),
}

# Which categories usually hit one service line rather than the whole claim.
LINE_LEVEL_CATEGORIES = frozenset({"coding", "bundling", "medical_necessity", "non_covered"})
# Days after service within which a claim must reach the payer, by payer kind.
TIMELY_FILING_DAYS = {"medicare": 365, "medicaid": 180, "commercial": 90, "hmo": 90}

# Categories whose denials are rarely overturned on appeal.
NOT_OVERTURNABLE = frozenset({"duplicate", "timely_filing"})
