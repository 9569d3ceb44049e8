"""How a claim x payer's episodes open and update its cases (pure: facts in, decisions out).

The history itself (order, re-deliveries, episodes, recovered money) is ``api.denials.cases.history``;
this module turns one episode into the case that shows it:

- an episode with no case **opens** one: ``episode_key`` (claim, payer identity, episode ordinal) is
  its ``denial_key``, unique per client, so a re-upload, a re-run or two confirms racing never open a
  second case. The opening event's denied entries classify it (the largest one; file order breaks
  ties); a recoupment episode has no CARC.
- a case **follows** its episode (``sync``): at stake and paid_before as the episode says, recovered =
  min(ledger recovery + recorded by hand, at stake); when the episode is over (the payer's current
  decision denies nothing, or a recoupment was paid again) a working case leaves the working states:
  ``won`` when everything at stake is recovered, ``partially_won`` when part of it is, ``lost`` when
  nothing is. The reason says which remittance did it.

A zero-amount code (``CAS*CO*97*0``) or a negative adjustment is never denied money, so it opens nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from api.denials.cases.history import Episode
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
    payer_identity: str | None = None  # the marts' payer_identity (id, else name) of an episode's case
    episode: int | None = None  # the episode's ordinal within its claim x payer


@dataclass(frozen=True)
class CaseUpdate:
    """How a case changes to show its episode (money, and a move out of the working states)."""

    case_id: int
    recovered_before: Decimal
    recovered_amount: Decimal
    paid_increment: Decimal
    reason: str
    move_to: str | None = None  # won | partially_won | lost when the episode is over
    amount_at_stake: Decimal | None = None  # set when the episode's differs from the case's
    paid_before: Decimal | None = None  # idem


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT)


def denial_key(claim_key: str, payer: str, remittance_identity: str, event_kind: str) -> str:
    """The digest naming one denial event (unique per client in the table): cases opened by hand."""
    parts = (claim_key.strip(), payer.strip().upper(), remittance_identity, event_kind)
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def episode_key(claim_key: str, payer_identity: str, ordinal: int) -> str:
    """The denial_key of a claim x payer x episode case: the same whatever the source (835 or the
    hospital's CSV), the upload order or the batch, so the table's unique key opens it once."""
    parts = (claim_key.strip(), payer_identity.strip().upper(), "episode", str(ordinal))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def denied_entries(entries: Iterable[EntryFact]) -> list[EntryFact]:
    """Entries that are denied money: posted as `denial` with a positive amount."""
    return [e for e in entries if e.entry_type == "denial" and e.amount > 0]


def _classification(primary: EntryFact, classifier: Classifier) -> Classification | None:
    if not primary.group_code:
        return None
    try:
        return classifier(primary.group_code, primary.carc, list(primary.rarcs))
    except UnknownGroupCodeError:
        return None


def claim_header(entries: Sequence[EntryFact]) -> EntryFact | None:
    """The entry that best describes the claim itself (the payment line, else the first decision)."""
    for e in entries:
        if e.component == "paid" and e.claim_status_code != REVERSAL_STATUS:
            return e
    decisions = [e for e in entries if e.claim_status_code != REVERSAL_STATUS] or list(entries)
    return decisions[0] if decisions else None


@dataclass(frozen=True)
class EpisodeFacts:
    """One episode of a claim x payer, as a case opens from it."""

    claim_key: str
    payer: str  # the payer's name
    payer_id: str | None
    payer_identity: str
    payer_class: str | None
    ordinal: int
    kind: str  # denial | recoupment
    amount_at_stake: Decimal
    paid_before: Decimal
    remittance_date: date | None
    entries: tuple[EntryFact, ...]  # the opening event's


def opening_for(facts: EpisodeFacts, classifier: Classifier = classify_adjustment) -> CaseOpening:
    """The case an episode opens: classified by the opening event's largest denied entry."""
    header = claim_header(facts.entries)
    denied = denied_entries(facts.entries) if facts.kind == "denial" else []
    primary = max(denied, key=lambda e: e.amount) if denied else None
    result = _classification(primary, classifier) if primary is not None else None
    return CaseOpening(
        denial_key=episode_key(facts.claim_key, facts.payer_identity, facts.ordinal),
        event_kind=facts.kind,
        claim_key=facts.claim_key,
        payer=facts.payer,
        payer_id=facts.payer_id,
        payer_class=facts.payer_class,
        payer_identity=facts.payer_identity,
        episode=facts.ordinal,
        amount_at_stake=money(facts.amount_at_stake),
        paid_before=money(facts.paid_before),
        remittance_date=facts.remittance_date,
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


def _when(d: date | None) -> str:
    return f"remittance of {d.isoformat()}" if d else "a remittance without a payment date"


def _closing_move(recovered: Decimal, at_stake: Decimal) -> str:
    if recovered >= at_stake:
        return "won"
    return "partially_won" if recovered > 0 else "lost"


def _move(case: OpenCase, recovered: Decimal, at_stake: Decimal, episode_open: bool) -> str | None:
    """Where a working case goes: out of the working states when its episode is over, or to won
    when everything at stake is recovered; a decided case is left as its people decided it."""
    if case.state not in UPDATABLE_STATES:
        return None
    if not episode_open:
        return _closing_move(recovered, at_stake)
    return "won" if recovered >= at_stake else None


def _reason(
    case: OpenCase, increment: Decimal, recovered: Decimal, at_stake: Decimal, move_to: str | None, when: str
) -> str:
    if recovered >= case.recovered_amount:
        reason = f"payer paid {increment:.2f} more on {when}"
    else:
        reason = f"payer took back money on {when}; paid {increment:.2f} more than when the case opened"
    if increment + case.recorded_by_hand > at_stake:
        reason += f" (recovered capped at the amount at stake {at_stake:.2f})"
    if move_to == "won":
        return reason + "; the whole amount at stake is recovered"
    if move_to is not None:
        return reason + f"; the payer's current decision denies nothing: {recovered:.2f} of {at_stake:.2f} recovered"
    if recovered > 0:
        reason += f"; {recovered:.2f} of {at_stake:.2f} recovered, the case stays {case.state}"
    return reason


def sync(case: OpenCase, episode: Episode, paid_now: Decimal, when: date | None) -> CaseUpdate | None:
    """How the case changes to show its episode; None when it already does."""
    at_stake = money(episode.amount_at_stake)
    increment = money(max(paid_now - episode.paid_before, ZERO))
    recovered = money(min(episode.recovered + case.recorded_by_hand, at_stake))
    move_to = _move(case, recovered, at_stake, episode.is_open)
    same_money = (at_stake, money(episode.paid_before), recovered) == (
        money(case.amount_at_stake),
        money(case.paid_before),
        money(case.recovered_amount),
    )
    if same_money and move_to is None:
        return None
    return CaseUpdate(
        case_id=case.id,
        recovered_before=case.recovered_amount,
        recovered_amount=recovered,
        paid_increment=increment,
        reason=_reason(case, increment, recovered, at_stake, move_to, _when(when)),
        move_to=move_to,
        amount_at_stake=None if at_stake == money(case.amount_at_stake) else at_stake,
        paid_before=None if money(episode.paid_before) == money(case.paid_before) else money(episode.paid_before),
    )
