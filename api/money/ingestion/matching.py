"""Matching remittances to claims over posted entries; what cannot be matched becomes an exception.

Pure: ledger entries in, findings out. A remittance claim matches a billed
claim by patient control number (the claim key); failing that, by payer claim
number, and failing that by a unique (billed amount, service date) pair. Then:

- unmatched_remittance: a remitted claim (paid, reversed or denied) that nobody billed;
- unmatched_claim: a billed claim with no remittance at all;
- amount_mismatch: the remittance's billed charge (CLP03) differs from the claim's charge;
- duplicate_payment: more than one positive payment by the same payer for a claim that no reversal
  of that payer cancels (two payers paying one claim is coordination of benefits).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

EXCEPTION_TYPES = ("unmatched_remittance", "unmatched_claim", "amount_mismatch", "duplicate_payment")


@dataclass(frozen=True)
class LedgerEntry:
    id: int
    entry_type: str
    component: str
    amount: Decimal
    claim_key: str | None
    payer_claim_number: str | None = None
    billed_amount: Decimal | None = None
    service_date: date | None = None
    payer: str | None = None


@dataclass(frozen=True)
class Finding:
    exception_type: str
    claim_key: str | None
    payer: str | None
    expected_amount: Decimal | None
    actual_amount: Decimal | None
    detail: str
    entry_ids: tuple[int, ...]


@dataclass
class ReconciliationResult:
    claims_considered: int
    remittances_considered: int
    matched: int
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(EXCEPTION_TYPES, 0)
        for f in self.findings:
            out[f.exception_type] += 1
        return out


@dataclass
class _Claim:
    key: str
    billed: Decimal
    service_date: date | None
    payer: str | None
    entry_ids: list[int]


@dataclass
class _Remit:
    key: str
    entries: list[LedgerEntry]

    @property
    def payer(self) -> str | None:
        return next((e.payer for e in self.entries if e.payer), None)

    @property
    def billed(self) -> Decimal | None:
        originals = [e for e in self.entries if e.entry_type != "reversal" and e.billed_amount is not None]
        return max(originals, key=lambda e: e.id).billed_amount if originals else None

    @property
    def service_date(self) -> date | None:
        return next((e.service_date for e in self.entries if e.service_date), None)

    @property
    def payer_claim_numbers(self) -> set[str]:
        return {e.payer_claim_number for e in self.entries if e.payer_claim_number}


def reconcile(entries: Iterable[LedgerEntry]) -> ReconciliationResult:
    """Match every remitted claim key to a billed one and report what does not reconcile."""
    claims, remits = _claims_and_remittances(entries)
    pairs, unmatched = _match_by_claim_number(remits.values(), claims)
    matched_keys = {claim.key for _, claim in pairs}
    fallback_pairs, unmatched = _match_by_amount_and_date(unmatched, claims, matched_keys)
    pairs += fallback_pairs
    matched_keys |= {claim.key for _, claim in fallback_pairs}

    findings = [_unmatched_remittance(remit) for remit in unmatched]
    findings += [_unmatched_claim(claim) for claim in claims.values() if claim.key not in matched_keys]
    for remit, claim in pairs:
        findings += _pair_findings(remit, claim)
    findings.sort(key=lambda f: (EXCEPTION_TYPES.index(f.exception_type), f.claim_key or ""))
    return ReconciliationResult(len(claims), len(remits), len(pairs), findings)


def _claims_and_remittances(entries: Iterable[LedgerEntry]) -> tuple[dict[str, _Claim], dict[str, _Remit]]:
    """Billed claims and remitted claims by claim key, built in entry order (ids ascending)."""
    claims: dict[str, _Claim] = {}
    remits: dict[str, _Remit] = {}
    for e in sorted(entries, key=lambda e: e.id):
        if not e.claim_key:
            continue
        if e.component == "charge":
            # The latest charge for a key is the claim as billed now (a resubmission replaces it).
            earlier = claims[e.claim_key].entry_ids if e.claim_key in claims else []
            claims[e.claim_key] = _Claim(e.claim_key, e.amount, e.service_date, e.payer, [*earlier, e.id])
        elif e.component in ("paid", "cas"):
            # A denied claim that paid nothing has only CAS entries; it is still a remittance.
            remits.setdefault(e.claim_key, _Remit(e.claim_key, [])).entries.append(e)
    return claims, remits


def _match_by_claim_number(
    remits: Iterable[_Remit], claims: dict[str, _Claim]
) -> tuple[list[tuple[_Remit, _Claim]], list[_Remit]]:
    """Pair each remittance with the claim of its claim key, else of one of its payer claim numbers;
    returns (pairs, remittances left unmatched)."""
    pairs: list[tuple[_Remit, _Claim]] = []
    unmatched: list[_Remit] = []
    for remit in remits:
        claim = claims.get(remit.key) or next((claims[n] for n in remit.payer_claim_numbers if n in claims), None)
        if claim is None:
            unmatched.append(remit)
        else:
            pairs.append((remit, claim))
    return pairs, unmatched


def _match_by_amount_and_date(
    remits: list[_Remit], claims: dict[str, _Claim], matched_keys: set[str]
) -> tuple[list[tuple[_Remit, _Claim]], list[_Remit]]:
    """Fallback: pair a remittance with the only open claim of the same billed amount and service
    date (each open claim pairs once); returns (pairs, remittances still unmatched)."""
    open_claims: dict[tuple[Decimal, date | None], list[_Claim]] = defaultdict(list)
    for claim in claims.values():
        if claim.key not in matched_keys:
            open_claims[(claim.billed, claim.service_date)].append(claim)
    pairs: list[tuple[_Remit, _Claim]] = []
    unmatched: list[_Remit] = []
    for remit in remits:
        candidates = open_claims.get((remit.billed, remit.service_date), []) if remit.billed is not None else []
        if len(candidates) == 1 and remit.service_date is not None:
            pairs.append((remit, candidates.pop()))
        else:
            unmatched.append(remit)
    return pairs, unmatched


def _unmatched_remittance(remit: _Remit) -> Finding:
    paid = sum((e.amount for e in remit.entries if e.component == "paid"), Decimal("0.00"))
    return Finding(
        "unmatched_remittance",
        remit.key,
        remit.payer,
        None,
        paid,
        "Remittance for a claim key with no billed claim (837 or claims export)",
        tuple(e.id for e in remit.entries),
    )


def _unmatched_claim(claim: _Claim) -> Finding:
    return Finding(
        "unmatched_claim",
        claim.key,
        claim.payer,
        claim.billed,
        None,
        "Billed claim with no remittance",
        tuple(claim.entry_ids),
    )


def _pair_findings(remit: _Remit, claim: _Claim) -> list[Finding]:
    """What does not reconcile between a remittance and the claim it matched."""
    found = (_amount_mismatch(remit, claim), _duplicate_payment(remit, claim))
    return [f for f in found if f is not None]


def _amount_mismatch(remit: _Remit, claim: _Claim) -> Finding | None:
    billed = remit.billed
    if billed is None or billed == claim.billed:
        return None
    return Finding(
        "amount_mismatch",
        claim.key,
        remit.payer or claim.payer,
        claim.billed,
        billed,
        "The remittance's billed charge (CLP03) differs from the claim's total charge",
        tuple(e.id for e in remit.entries) + tuple(claim.entry_ids),
    )


def _duplicate_payment(remit: _Remit, claim: _Claim) -> Finding | None:
    """One payer paid the claim more than once: more positive payments by the SAME payer than that
    payer's reversals and recoupments cancel. Payments by different payers are coordination of
    benefits (a primary, then a secondary paying the coinsurance; X12 835 TR3 CLP02 = 19 / 2), never
    a duplicate. The payer with the most uncancelled payments is reported."""
    found: tuple[int, list[LedgerEntry], list[LedgerEntry]] | None = None
    for payments, reversals in _payments_by_payer(remit).values():
        extra = len(payments) - len(reversals)
        if extra > 1 and (found is None or extra > found[0]):
            found = (extra, payments, reversals)
    if found is None:
        return None
    _, payments, reversals = found
    return Finding(
        "duplicate_payment",
        claim.key,
        payments[0].payer,
        max(p.amount for p in payments),
        sum((e.amount for e in payments + reversals), Decimal("0.00")),
        f"{len(payments)} payments and {len(reversals)} reversals by one payer for one claim",
        tuple(e.id for e in payments),
    )


def _payments_by_payer(remit: _Remit) -> dict[str | None, tuple[list[LedgerEntry], list[LedgerEntry]]]:
    """Per payer (as the remittance names it): its positive payments and the reversals and recoupments
    (a negative CLP04 without CLP02=22 takes a payment back as a reversal does) that cancel them."""
    out: dict[str | None, tuple[list[LedgerEntry], list[LedgerEntry]]] = {}
    for e in remit.entries:
        if e.component != "paid":
            continue
        payments, reversals = out.setdefault(e.payer, ([], []))
        if e.entry_type == "payment" and e.amount > 0:
            payments.append(e)
        elif e.entry_type in ("reversal", "recoupment") and e.amount < 0:
            reversals.append(e)
    return out
