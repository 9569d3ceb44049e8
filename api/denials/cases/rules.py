"""When a confirmed remittance opens or updates a denial case (pure: facts in, decisions out).

One *claim event* is everything one remittance (an 835 transaction, or a tabular batch) said about
one claim for one payer: its posted entries, plus that payer's paid total for the claim in the
ledger once the batch is posted. For each event:

- a **denial** opens a case: entries posted as `denial` with a positive amount (a denial CARC, or
  any positive non-PR adjustment of a CLP02=4 claim). At stake: their sum.
- a **recoupment** opens a case when no denial does: a `recoupment` entry (a negative CLP04 that is
  not a reversal), or a reversal (CLP02=22) with no new decision for the claim in the same
  remittance. At stake: the money taken back.
- anything else about the claim (a payment, a reversal followed by its corrected claim) **updates**
  the payer's working cases of that claim: recovered = what the payer paid beyond ``paid_before``
  (never below 0, never above the amount at stake), plus what was recorded by hand.

A zero-amount code (``CAS*CO*97*0``) or a negative adjustment is never denied money, so it opens
nothing. ``denial_key`` names the denial event: the same remittance delivered again (a re-upload, a
new envelope, a re-run) gives the same key, and the table's unique key opens the case once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from pipelines.ingest.classify import REVERSAL_STATUS, Classification, UnknownGroupCodeError, classify_adjustment

ZERO = Decimal("0.00")
CENT = Decimal("0.01")
#: Entry types that are a decision about the claim (not a reversal of an earlier one, not a PLB).
DECISION_TYPES = frozenset({"payment", "denial", "patient_responsibility", "adjustment", "recoupment"})
#: States in which a case is still being worked, so the ledger may move it to `won`.
UPDATABLE_STATES = frozenset({"open", "triaged", "in_appeal", "awaiting_payer"})

Classifier = Callable[[str, str | None, Iterable[str]], Classification]


@dataclass(frozen=True)
class EntryFact:
    """One posted financial entry of the claim event, as the rules need it."""

    entry_type: str
    component: str
    amount: Decimal
    claim_status_code: str | None = None
    group_code: str | None = None
    carc: str | None = None
    rarcs: tuple[str, ...] = ()
    denial_category: str | None = None
    is_denial: bool = False
    billed_amount: Decimal | None = None
    payer_claim_number: str | None = None
    service_date: date | None = None


@dataclass(frozen=True)
class ClaimEvent:
    """What one remittance said about one claim for one payer."""

    claim_key: str
    payer: str
    remittance_identity: str  # the remittance's identity key (payer|trace|signed amount|date)
    remittance_date: date | None
    entries: tuple[EntryFact, ...]
    paid_total: Decimal  # the payer's paid total for the claim in the ledger, this remittance included
    payer_id: str | None = None
    payer_class: str | None = None  # from the claim's CLP06 filing indicator (medicare, medicaid, ...)


@dataclass(frozen=True)
class OpenCase:
    """A case of the same claim x payer already in the table."""

    id: int
    state: str
    amount_at_stake: Decimal
    paid_before: Decimal
    recovered_amount: Decimal
    recorded_by_hand: Decimal = ZERO  # recoveries recorded with caseRecovery.recordRecovery


@dataclass(frozen=True)
class CaseOpening:
    """A case to insert (unless its denial_key is already there)."""

    denial_key: str
    event_kind: str  # denial | recoupment
    claim_key: str
    payer: str
    payer_id: str | None
    amount_at_stake: Decimal
    paid_before: Decimal
    remittance_date: date | None
    claim_status_code: str | None
    payer_claim_number: str | None
    billed_amount: Decimal | None
    service_date: date | None
    denial_category: str | None = None
    group_code: str | None = None
    carc: str | None = None
    rarcs: tuple[str, ...] = ()
    hard_or_soft: str | None = None
    preventable: str | None = None
    payer_class: str | None = None


@dataclass(frozen=True)
class CaseUpdate:
    """A working case whose recovered amount the ledger changed."""

    case_id: int
    recovered_before: Decimal
    recovered_amount: Decimal
    paid_increment: Decimal
    reason: str
    move_to: str | None = None  # "won" when the whole amount at stake is recovered


@dataclass
class Decisions:
    opens: list[CaseOpening] = field(default_factory=list)
    updates: list[CaseUpdate] = field(default_factory=list)


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT)


def denial_key(claim_key: str, payer: str, remittance_identity: str, event_kind: str) -> str:
    """The digest naming one denial event (unique per client in the table)."""
    parts = (claim_key.strip(), payer.strip().upper(), remittance_identity, event_kind)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def denied_entries(entries: Iterable[EntryFact]) -> list[EntryFact]:
    """Entries that are denied money: posted as `denial` with a positive amount."""
    return [e for e in entries if e.entry_type == "denial" and e.amount > 0]


def money_taken_back(entries: Sequence[EntryFact]) -> Decimal:
    """What a recoupment took back (positive): its `recoupment` entries, and the paid amounts of
    reversals when the remittance made no new decision about the claim."""
    recouped = -sum((e.amount for e in entries if e.entry_type == "recoupment"), ZERO)
    new_decision = any(e.entry_type in DECISION_TYPES and e.claim_status_code != REVERSAL_STATUS for e in entries)
    reversed_paid = ZERO
    if not new_decision:
        reversed_paid = -sum((e.amount for e in entries if e.entry_type == "reversal" and e.component == "paid"), ZERO)
    return money(max(recouped, ZERO) + max(reversed_paid, ZERO))


def _classification(primary: EntryFact, classifier: Classifier) -> Classification | None:
    if not primary.group_code:
        return None
    try:
        return classifier(primary.group_code, primary.carc, list(primary.rarcs))
    except UnknownGroupCodeError:
        return None


def _claim_header(event: ClaimEvent) -> EntryFact | None:
    """The entry that best describes the claim itself (the payment line, else the first one)."""
    for e in event.entries:
        if e.component == "paid" and e.claim_status_code != REVERSAL_STATUS:
            return e
    decisions = [e for e in event.entries if e.claim_status_code != REVERSAL_STATUS] or list(event.entries)
    return decisions[0] if decisions else None


def _opening(event: ClaimEvent, kind: str, at_stake: Decimal, primary: EntryFact | None, c: Classifier) -> CaseOpening:
    header = _claim_header(event)
    result = _classification(primary, c) if primary is not None else None
    return CaseOpening(
        denial_key=denial_key(event.claim_key, event.payer, event.remittance_identity, kind),
        event_kind=kind,
        claim_key=event.claim_key,
        payer=event.payer,
        payer_id=event.payer_id,
        payer_class=event.payer_class,
        amount_at_stake=money(at_stake),
        paid_before=money(event.paid_total),
        remittance_date=event.remittance_date,
        claim_status_code=header.claim_status_code if header else None,
        payer_claim_number=header.payer_claim_number if header else None,
        billed_amount=header.billed_amount if header else None,
        service_date=header.service_date if header else None,
        denial_category=primary.denial_category if primary else None,
        group_code=primary.group_code if primary else None,
        carc=primary.carc if primary else None,
        rarcs=primary.rarcs if primary else (),
        hard_or_soft=result.hard_or_soft if result else None,
        preventable=result.preventable if result else None,
    )


def opening_for(event: ClaimEvent, classifier: Classifier = classify_adjustment) -> CaseOpening | None:
    """The case this claim event opens, if any: a denial first, else a recoupment."""
    denied = denied_entries(event.entries)
    if denied:
        # The largest denied adjustment classifies the case; file order breaks ties.
        primary = max(denied, key=lambda e: e.amount)
        return _opening(event, "denial", sum((e.amount for e in denied), ZERO), primary, classifier)
    taken = money_taken_back(event.entries)
    if taken > 0:
        return _opening(event, "recoupment", taken, None, classifier)
    return None


def _when(d: date | None) -> str:
    return f"remittance of {d.isoformat()}" if d else "a remittance without a payment date"


def update_for(case: OpenCase, event: ClaimEvent) -> CaseUpdate | None:
    """How a claim event that opens nothing changes a working case of the same claim x payer."""
    if case.state not in UPDATABLE_STATES:
        return None
    increment = money(max(event.paid_total - case.paid_before, ZERO))
    recovered = money(min(increment + case.recorded_by_hand, case.amount_at_stake))
    if recovered == case.recovered_amount:
        return None
    when = _when(event.remittance_date)
    if recovered > case.recovered_amount:
        reason = f"payer paid {increment:.2f} more on {when}"
    else:
        reason = f"payer took back money on {when}; paid {increment:.2f} more than when the case opened"
    if increment + case.recorded_by_hand > case.amount_at_stake:
        reason += f" (recovered capped at the amount at stake {case.amount_at_stake:.2f})"
    move_to = None
    if recovered >= case.amount_at_stake and case.state != "won":
        move_to = "won"
        reason += "; the whole amount at stake is recovered"
    elif recovered > 0:
        reason += f"; {recovered:.2f} of {case.amount_at_stake:.2f} recovered, the case stays {case.state}"
    return CaseUpdate(case.id, case.recovered_amount, recovered, increment, reason, move_to)


def decide(
    events: Iterable[ClaimEvent],
    open_cases: dict[tuple[str, str], list[OpenCase]],
    classifier: Classifier = classify_adjustment,
) -> Decisions:
    """Openings and updates for a posted batch. `open_cases` is keyed by (claim_key, upper-cased payer)."""
    out = Decisions()
    updated: dict[int, CaseUpdate] = {}
    for event in events:
        opening = opening_for(event, classifier)
        if opening is not None:
            out.opens.append(opening)
            continue
        for case in open_cases.get((event.claim_key, event.payer.strip().upper()), []):
            update = update_for(case, event)
            if update is not None:
                # Two remittances of one batch about the same claim see the same ledger total: one update.
                updated[case.id] = update
    out.updates = list(updated.values())
    return out
