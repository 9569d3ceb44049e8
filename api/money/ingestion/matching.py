"""Matching remittances to claims over posted entries; what cannot be matched becomes an exception.

Pure: ledger entries in, findings out. A remittance claim matches a billed
claim by patient control number (the claim key); failing that, by payer claim
number, and failing that by a unique (billed amount, service date) pair. Then:

- unmatched_remittance: a remitted claim (paid, reversed or denied) that nobody billed;
- unmatched_claim: a billed claim with no remittance at all;
- amount_mismatch: the remittance's billed charge (CLP03) differs from the claim's charge;
- duplicate_payment: more than one positive payment for a claim that no reversal cancels.
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
        out = {t: 0 for t in EXCEPTION_TYPES}
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
    claims: dict[str, _Claim] = {}
    remits: dict[str, _Remit] = {}
    for e in sorted(entries, key=lambda e: e.id):
        if not e.claim_key:
            continue
        if e.component == "charge":
            # The latest charge for a key is the claim as billed now (a resubmission replaces it).
            claims[e.claim_key] = _Claim(
                e.claim_key,
                e.amount,
                e.service_date,
                e.payer,
                [*claims[e.claim_key].entry_ids, e.id] if e.claim_key in claims else [e.id],
            )
        elif e.component in ("paid", "cas"):
            # A denied claim that paid nothing has only CAS entries; it is still a remittance.
            remits.setdefault(e.claim_key, _Remit(e.claim_key, [])).entries.append(e)

    findings: list[Finding] = []
    matched_claims: set[str] = set()
    unmatched: list[_Remit] = []
    pairs: list[tuple[_Remit, _Claim]] = []
    for remit in remits.values():
        claim = claims.get(remit.key) or next((claims[n] for n in remit.payer_claim_numbers if n in claims), None)
        if claim is None:
            unmatched.append(remit)
        else:
            pairs.append((remit, claim))
            matched_claims.add(claim.key)

    # Fallback: a unique open claim with the same billed amount and service date.
    open_claims = defaultdict(list)
    for claim in claims.values():
        if claim.key not in matched_claims:
            open_claims[(claim.billed, claim.service_date)].append(claim)
    for remit in unmatched:
        candidates = open_claims.get((remit.billed, remit.service_date), []) if remit.billed is not None else []
        if len(candidates) == 1 and remit.service_date is not None:
            claim = candidates.pop()
            pairs.append((remit, claim))
            matched_claims.add(claim.key)
            continue
        paid = sum((e.amount for e in remit.entries if e.component == "paid"), Decimal("0.00"))
        findings.append(
            Finding(
                "unmatched_remittance",
                remit.key,
                remit.payer,
                None,
                paid,
                "Remittance for a claim key with no billed claim (837 or claims export)",
                tuple(e.id for e in remit.entries),
            )
        )

    for claim in claims.values():
        if claim.key not in matched_claims:
            findings.append(
                Finding(
                    "unmatched_claim",
                    claim.key,
                    claim.payer,
                    claim.billed,
                    None,
                    "Billed claim with no remittance",
                    tuple(claim.entry_ids),
                )
            )

    for remit, claim in pairs:
        billed = remit.billed
        if billed is not None and billed != claim.billed:
            findings.append(
                Finding(
                    "amount_mismatch",
                    claim.key,
                    remit.payer or claim.payer,
                    claim.billed,
                    billed,
                    "The remittance's billed charge (CLP03) differs from the claim's total charge",
                    tuple(e.id for e in remit.entries) + tuple(claim.entry_ids),
                )
            )
        payments = [e for e in remit.entries if e.component == "paid" and e.entry_type == "payment" and e.amount > 0]
        reversals = [e for e in remit.entries if e.component == "paid" and e.entry_type == "reversal" and e.amount < 0]
        if len(payments) - len(reversals) > 1:
            net = sum((e.amount for e in remit.entries if e.component == "paid"), Decimal("0.00"))
            findings.append(
                Finding(
                    "duplicate_payment",
                    claim.key,
                    remit.payer,
                    max(p.amount for p in payments),
                    net,
                    f"{len(payments)} payments and {len(reversals)} reversals for one claim",
                    tuple(e.id for e in payments),
                )
            )
    findings.sort(key=lambda f: (EXCEPTION_TYPES.index(f.exception_type), f.claim_key or ""))
    return ReconciliationResult(len(claims), len(remits), len(pairs), findings)
