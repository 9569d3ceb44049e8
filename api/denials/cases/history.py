"""A claim's adjudication history with one payer -> its denial episodes (pure: no I/O).

The case side of the marts' ``int_claim_payer_adjudications`` (and its inputs
``int_remittance_claims_sequenced`` / ``int_remittances_identified``): the same events, the same
order, the same money, so a case and the marts agree claim by claim and payer by payer.

- **Order** (the payer's, whatever the upload order or batch): payment date, then interchange
  (ISA09/ISA10 date and time, ISA13), then position in the file (transaction, claim), then batch.
- **Re-delivery** (X12 835 TR3 005010X221A1 BPR/TRN: the payer may re-send a remittance in a new
  envelope): one remittance is (payer, TRN02, signed BPR02, payment date); only the events of its
  first delivery count. A tabular denial exported again is the same (payer, date, payer claim number).
- **CLP02=25** (predetermination) is never a decision; **CLP02=22** reverses an earlier one.
- **Episode**: opens at the first decision with denied money (at stake = that decision's denied
  amount, paid_before = the payer's paid total up to and including it); later decisions that still
  deny money keep it open (a partial win updates the same case); it ends when the payer's current
  decision denies nothing; a denial after an ended episode opens the next episode.
- **Recovered** = min(max(payer's paid total now - paid_before, 0), at stake): HFMA MAP Keys count a
  denial overturned/recovered on the payer's later payment, measured over what was paid at the denial.
- **Recoupment**: money taken back with nothing replacing it (a reversal with no decision in its
  remittance or after it, a negative-CLP04 or claim-linked PLB WO/FB ``recoupment``) opens a
  recoupment episode unless one is open (which it then keeps open); a later re-payment recovers it.
- **Tabular** (the hospital's own denial worklist): when the payer has an 835 history the 835 is the
  truth and a CSV denial only joins it (it opens nothing); a payer known only from CSV rows gets one
  episode from its first CSV denial, recovered by the CSV payments posted for that payer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

ZERO = Decimal("0.00")
CENT = Decimal("0.01")
REVERSAL = "22"
PREDETERMINATION = "25"
REMITTANCE = "remittance"
TABULAR = "tabular"


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT)


@dataclass(frozen=True)
class EventOrder:
    """Where an event sits in the payer's order (all fields compare; missing ones sort first)."""

    payment_date: date | None = None
    interchange_stamp: str = ""  # ISA09 YYMMDD || ISA10 HHMM
    interchange_control_number: str = ""  # ISA13
    transaction: int = 0
    claim: int = 0
    batch: int = 0

    def key(self) -> tuple[Any, ...]:
        return (
            self.payment_date or date.min,
            self.interchange_stamp,
            self.interchange_control_number,
            self.transaction,
            self.claim,
            self.batch,
        )

    def remittance_key(self) -> tuple[Any, ...]:
        """The remittance's place (the claim's position left out): events of one remittance share it."""
        return (*self.key()[:4], self.batch)

    def delivery(self) -> tuple[Any, ...]:
        """Which delivery (envelope and batch) the event came in."""
        return (self.interchange_stamp, self.interchange_control_number, self.batch)


@dataclass(frozen=True)
class PayerEvent:
    """One CLP (or one PLB recoupment, or one tabular denial/payment) of a claim with one payer."""

    order: EventOrder
    paid: Decimal = ZERO  # Σ `paid` component (payments, reversals, negative-CLP04 recoupments)
    denied: Decimal = ZERO  # Σ positive `denial` entries (denied money)
    taken_back: Decimal = ZERO  # money a `recoupment` took back (positive)
    status: str | None = None  # CLP02; None for a PLB or a tabular row
    remittance: str | None = None  # re-delivery identity (payer|TRN02|signed BPR02|date); None: always kept
    source: str = REMITTANCE  # remittance | tabular
    ref: Any = None  # the caller's handle on the event (never read here)

    @property
    def is_reversal(self) -> bool:
        return self.status == REVERSAL

    @property
    def is_decision(self) -> bool:
        """A CLP that decides the claim (not a reversal, not a predetermination)."""
        return self.source == REMITTANCE and self.status is not None and self.status not in (REVERSAL, PREDETERMINATION)


@dataclass(frozen=True)
class Episode:
    """One denial (or recoupment) episode of a claim x payer, as its case must show it."""

    ordinal: int  # 1 for the payer's first episode of the claim
    kind: str  # denial | recoupment
    opened_by: int  # index of the opening event in History.events
    amount_at_stake: Decimal
    paid_before: Decimal
    recovered: Decimal  # the ledger's part (recorded-by-hand amounts are added by the case)
    is_open: bool  # the payer's current decision still denies (or the money is still taken back)
    last_event: int  # index of the last event that kept it open or ended it
    payment_date: date | None = None  # the opening event's


@dataclass(frozen=True)
class History:
    events: tuple[PayerEvent, ...]  # kept (first deliveries, predeterminations left out), in the payer's order
    episodes: tuple[Episode, ...]
    paid_total: Decimal  # the payer's paid total for the claim now


def first_deliveries(events: Iterable[PayerEvent]) -> list[PayerEvent]:
    """Events of a remittance's first delivery only (a remittance re-sent in a new envelope, or the
    same file twice, counts once); events without a remittance identity are all kept."""
    items = list(events)
    first: dict[str, tuple[Any, ...]] = {}
    for e in items:
        if e.remittance is not None:
            d = e.order.delivery()
            if e.remittance not in first or d < first[e.remittance]:
                first[e.remittance] = d
    return [e for e in items if e.remittance is None or e.order.delivery() == first[e.remittance]]


def in_payer_order(events: Iterable[PayerEvent]) -> list[PayerEvent]:
    """Kept events in the payer's order (stable for full ties)."""
    kept = [e for e in first_deliveries(events) if e.status != PREDETERMINATION]
    return sorted(kept, key=lambda e: (e.order.key(), e.source, e.status or "", e.paid, e.denied, e.taken_back))


@dataclass
class _Draft:
    kind: str
    opened_by: int
    at_stake: Decimal
    paid_before: Decimal
    payment_date: date | None
    last: int
    is_open: bool = True


@dataclass
class _Walk:
    paid: Decimal = ZERO
    drafts: list[_Draft] = field(default_factory=list)

    @property
    def current(self) -> _Draft | None:
        return self.drafts[-1] if self.drafts and self.drafts[-1].is_open else None

    def open(self, kind: str, i: int, at_stake: Decimal, when: date | None) -> None:
        self.drafts.append(_Draft(kind, i, money(at_stake), money(self.paid), when, i))

    def touch(self, i: int) -> None:
        current = self.current
        if current is not None:
            current.last = i

    def end(self, i: int) -> None:
        current = self.current
        if current is not None:
            current.last = i
            current.is_open = False


def _step(walk: _Walk, i: int, e: PayerEvent) -> None:
    """Apply one remittance event (a decision, a reversal or a PLB recoupment) to the walk."""
    walk.paid += e.paid
    if e.is_reversal:
        return  # a reversal alone decides nothing; a reversed-out claim is read at the end
    if e.denied > 0 and e.is_decision:
        if walk.current is None:
            walk.open("denial", i, e.denied, e.order.payment_date)
        else:
            walk.touch(i)
    elif e.taken_back > 0:
        if walk.current is None:
            walk.open("recoupment", i, e.taken_back, e.order.payment_date)
        else:
            walk.touch(i)
    elif e.is_decision:
        walk.end(i)  # the payer's current decision denies nothing: the episode is over


def _reversed_out(events: Sequence[PayerEvent]) -> tuple[int, Decimal] | None:
    """(index of the last reversal, money taken back) when the payer's last remittance for the claim
    only reverses: no decision in that remittance or after it (the marts' ``is_reversed_out``)."""
    reversals = [i for i, e in enumerate(events) if e.is_reversal]
    if not reversals:
        return None
    last_reversal = events[reversals[-1]].order.remittance_key()
    decisions = [e.order.remittance_key() for e in events if e.is_decision]
    if decisions and max(decisions) >= last_reversal:
        return None
    taken = -sum((events[i].paid for i in reversals if events[i].order.remittance_key() == last_reversal), ZERO)
    return reversals[-1], money(taken)


def _tabular_walk(events: Sequence[PayerEvent]) -> _Walk:
    """A payer known only from the hospital's exports: its first CSV denial is the episode."""
    walk = _Walk()
    for i, e in enumerate(events):
        walk.paid += e.paid
        if e.denied > 0:
            if not walk.drafts:
                walk.open("denial", i, e.denied, e.order.payment_date)
            else:
                walk.touch(i)
    return walk


def _remittance_walk(events: Sequence[PayerEvent]) -> _Walk:
    """The 835 history (tabular rows of the same payer join it: they change nothing)."""
    walk = _Walk()
    for i, e in enumerate(events):
        if e.source == REMITTANCE:
            _step(walk, i, e)
    reversed_out = _reversed_out([e if e.source == REMITTANCE else _inert(e) for e in events])
    if reversed_out is not None and reversed_out[1] > 0:
        i, taken = reversed_out
        if walk.current is None:
            walk.open("recoupment", i, taken, events[i].order.payment_date)
        else:
            walk.touch(i)
    return walk


def _inert(e: PayerEvent) -> PayerEvent:
    return PayerEvent(order=e.order, source=TABULAR)


def _episode(ordinal: int, d: _Draft, paid_now: Decimal) -> Episode:
    recovered = money(min(max(paid_now - d.paid_before, ZERO), d.at_stake))
    is_open = d.is_open
    if d.kind == "recoupment" and recovered >= d.at_stake:
        is_open = False  # the money taken back is paid again
    return Episode(
        ordinal=ordinal,
        kind=d.kind,
        opened_by=d.opened_by,
        amount_at_stake=d.at_stake,
        paid_before=d.paid_before,
        recovered=recovered,
        is_open=is_open,
        last_event=d.last,
        payment_date=d.payment_date,
    )


def history(events: Iterable[PayerEvent]) -> History:
    """The payer's history of one claim: its kept events in order and its episodes."""
    ordered = in_payer_order(events)
    has_remittance = any(e.source == REMITTANCE for e in ordered)
    walk = _remittance_walk(ordered) if has_remittance else _tabular_walk(ordered)
    paid_now = money(walk.paid)
    episodes = tuple(_episode(n, d, paid_now) for n, d in enumerate(walk.drafts, start=1))
    if not has_remittance and episodes:
        # a tabular-only episode ends when the exports show the whole amount paid
        only = episodes[0]
        episodes = (Episode(**{**only.__dict__, "is_open": only.recovered < only.amount_at_stake}),)
    return History(tuple(ordered), episodes, paid_now)
