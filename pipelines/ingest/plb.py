"""What a provider-level adjustment (835 PLB) means, and which claim it is about.

Source: ASC X12N 835 (005010X221A1) TR3, segment PLB (Provider Adjustment), element PLB03 (C042
Adjustment Identifier): PLB03-1 is the Provider Adjustment Reason Code (code source: X12 element 426,
the list in dbt_project/seeds/reference/plb03_1_provider_adjustment_reason_codes.csv, whose `meaning`
column repeats the map below; tests/unit/pipelines/ingest/test_plb.py keeps the two equal) and
PLB03-2 the reference identifier. The TR3 asks for the identifier of the claim when the adjustment is
about one: for WO (overpayment recovery), FB (forwarding balance) and 72 (authorized return) the
payer's claim control number (CLP07) or the patient control number (CLP01) of the claim, which some
payers prefix with the reason code (``WO12345``, ``FB-12345``) or follow with the patient's id
(CMS: ``ICN HIC``). PLB04 is the amount: positive reduces the payment (money withheld or taken
back), negative adds to it (L6 interest, an advance).

Pure: no I/O. The marts (fct_provider_adjustments) apply the same candidates in SQL.
"""

from __future__ import annotations

from decimal import Decimal

#: PLB03-1 -> what the money is. recoupment: an overpayment taken back (from a claim when PLB03-2 names
#: one); forward_balance: a balance carried between remittances (FB); authorized_return: money the
#: provider agreed to return; interest: paid to the provider (income, never a shortfall); penalty: charged
#: to the provider; withholding: withheld for a third party or a program; periodic_payment: payments not
#: tied to a claim (capitation, interim, advances); passthrough: cost-report pass-through payments;
#: incentive: bonuses and incentives; adjustment: anything else.
PLB_MEANINGS: dict[str, str] = {
    "WO": "recoupment",
    "WU": "recoupment",
    "FB": "forward_balance",
    "72": "authorized_return",
    "L6": "interest",
    "CR": "interest",
    "51": "interest",
    "50": "penalty",
    "L3": "penalty",
    "E3": "withholding",
    "IR": "withholding",
    "LE": "withholding",
    "SL": "withholding",
    "AM": "withholding",
    "OB": "withholding",
    "AP": "periodic_payment",
    "PI": "periodic_payment",
    "IS": "periodic_payment",
    "C5": "periodic_payment",
    "CT": "periodic_payment",
    "LS": "periodic_payment",
    "PL": "periodic_payment",
    "CV": "passthrough",
    "CW": "passthrough",
    "DM": "passthrough",
    "GO": "passthrough",
    "OA": "passthrough",
    "HM": "passthrough",
    "BN": "incentive",
    "IP": "incentive",
    "RE": "incentive",
    "90": "adjustment",
    "AH": "adjustment",
    "B2": "adjustment",
    "B3": "adjustment",
    "BD": "adjustment",
    "CS": "adjustment",
    "FC": "adjustment",
    "J1": "adjustment",
    "RA": "adjustment",
    "TL": "adjustment",
}

#: Reason codes whose positive amount, when PLB03-2 names a claim, is money taken back for that claim.
CLAIM_RECOUPMENT_CODES = frozenset({"WO", "WU", "FB"})
_SEPARATORS = " -:"


def plb_meaning(reason_code: str | None) -> str:
    """The meaning of a PLB03-1 code (``adjustment`` for a code the list does not hold)."""
    return PLB_MEANINGS.get((reason_code or "").strip().upper(), "adjustment")


def is_claim_recoupment(reason_code: str | None, amount: Decimal) -> bool:
    """A WO/WU overpayment recovery, or an FB forwarding balance, that withholds money (positive PLB04):
    when PLB03-2 names a claim, money taken back for that claim."""
    return (reason_code or "").strip().upper() in CLAIM_RECOUPMENT_CODES and amount > 0


def reference_candidates(reason_code: str | None, reference: str | None) -> list[str]:
    """The claim identifiers PLB03-2 may hold, most literal first: the reference as sent; without a
    leading reason-code prefix (``WO12345``, ``FB-12345`` -> ``12345``); its first word (``ICN HIC``)."""
    ref = (reference or "").strip()
    if not ref:
        return []
    out = [ref]
    code = (reason_code or "").strip().upper()
    if code and ref.upper().startswith(code):
        stripped = ref[len(code) :].lstrip(_SEPARATORS)
        if stripped:
            out.append(stripped)
    for candidate in list(out):
        first = candidate.split(" ", 1)[0]
        if first:
            out.append(first)
    return list(dict.fromkeys(out))


def resolve_claim(
    reason_code: str | None,
    reference: str | None,
    claim_keys: set[str],
    payer_claim_numbers: dict[str, str],
) -> str | None:
    """The claim key PLB03-2 names: the first candidate that is a known claim key (CLP01), else a
    known payer claim control number (CLP07 -> its CLP01); None when it names no known claim."""
    candidates = reference_candidates(reason_code, reference)
    for candidate in candidates:
        if candidate in claim_keys:
            return candidate
    for candidate in candidates:
        if candidate in payer_claim_numbers:
            return payer_claim_numbers[candidate]
    return None
