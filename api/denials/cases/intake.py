"""Cases open and update themselves when a batch is confirmed (a `Services.batch_posted` listener).

Runs inside the confirm's transaction, after the batch's entries are posted. For every claim the
batch touches it reads the claim's whole posted history from the ledger (every payer, every batch:
financial entries, their import rows and their batch's remittance metadata — payment date,
interchange date/time/control number, transaction and claim position), keeps it per payer identity
(the marts' ``payer_identity``: the payer id resolved through the payer aliases, else the name),
applies it in the payer's order (``api.denials.cases.history``) and makes one case per claim x payer
x episode show it (``rules.opening_for`` / ``rules.sync``).

The hospital's own denial worklist (a CSV) joins the 835's payer: matched by payer id, else
normalized name or payer alias, else payer class (when one payer of the claim has it); its case is
the same case whichever file came first.

Idempotency and concurrency: the denial_key of a case is the digest of (claim, payer identity,
episode ordinal) and opening is INSERT ... ON CONFLICT DO NOTHING on (client, denial_key); on
PostgreSQL the intake of one client also takes a transaction-scoped advisory lock, so two confirms
racing read each other's committed history and never open a second case for one episode (a CSV
case and its 835 case have different payer spellings: only the lock makes that race safe).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from api.core.lifecycle import transition as move
from api.denials.cases import service
from api.denials.cases.history import REMITTANCE, TABULAR, Episode, EventOrder, History, PayerEvent, history
from api.denials.cases.lifecycle import CASE, CONTRADICTED_BY_THE_PAYER, WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.cases.payer_classes import normalized_payer_name, payer_class_of, payer_class_of_name
from api.denials.cases.rules import (
    ZERO,
    CaseOpening,
    CaseUpdate,
    EntryFact,
    EpisodeFacts,
    OpenCase,
    episode_key,
    money,
    opening_for,
    sync,
)
from api.money.ingestion import service as ingestion
from api.money.reconciliation import service as reconciliation

CHUNK = 500
#: Entry types that are about a claim (charges, deposits and unlinked PLBs are not).
CLAIM_ENTRY_TYPES = ("payment", "denial", "patient_responsibility", "adjustment", "reversal", "recoupment")
UNKNOWN_PAYER = "UNKNOWN PAYER"
#: pg_advisory_xact_lock(namespace, client id): one case intake at a time per client.
LOCK_NAMESPACE = 2024


def open_cases_for_batch(db: Session, batch_id: int) -> list[int]:
    """Open and update the cases of every claim x payer the batch touches so they show the payer's
    whole history (``api.denials.cases.history``); the ids of the cases opened, and of the cases whose
    deadline facts changed (adopted by another source's payer, a new stated deadline from the hospital's
    export): what follows an opening (deadlines, the rank) must be computed again for them."""
    batch = ingestion.posted_batch(db, batch_id)
    if batch is None:
        return []
    claim_keys = _batch_claim_keys(db, batch_id)
    if not claim_keys:
        return []
    _serialize(db, batch.client_id)
    aliases = _Aliases.read(db)
    opened: list[int] = []
    for chunk in _chunks(claim_keys):
        events = _ledger_events(db, chunk, aliases)
        cases = _cases_of(db, chunk)
        for claim_key in chunk:
            intake = _ClaimIntake(db, batch, claim_key, cases.get(claim_key, []))
            opened += intake.run(events.get(claim_key, []))
    return opened


def _serialize(db: Session, client_id: int) -> None:
    if db.get_bind().dialect.name == "postgresql":
        db.execute(text("select pg_advisory_xact_lock(:ns, :client)"), {"ns": LOCK_NAMESPACE, "client": client_id})


def _batch_claim_keys(db: Session, batch_id: int) -> list[str]:
    return ingestion.batch_claim_keys(db, batch_id, CLAIM_ENTRY_TYPES)


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


# --- payers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Alias:
    payer_key: str
    payer_id: str | None
    payer_class: str | None


@dataclass
class _Aliases:
    """The client's payer aliases (``payer_aliases``), compared upper-cased and trimmed as the marts do."""

    by_kind: dict[tuple[str, str], _Alias] = field(default_factory=dict)

    @classmethod
    def read(cls, db: Session) -> _Aliases:
        out = cls()
        for a in reconciliation.payer_aliases(db):
            key = (a.alias_kind, a.alias.strip().upper())
            canonical_id = a.canonical_payer_id.strip().upper() if a.canonical_payer_id else None
            out.by_kind[key] = _Alias(a.canonical_payer_key.strip().upper(), canonical_id, a.payer_class)
        return out

    def resolve(self, payer_id: str | None, name: str) -> tuple[str, str | None, str | None]:
        """(payer key, payer id, alias class) as int_remittances_identified resolves them."""
        by_id = self.by_kind.get(("payer_id", payer_id)) if payer_id else None
        by_name = self.by_kind.get(("payer_name", name))
        key = (by_id and by_id.payer_key) or (by_name and by_name.payer_key) or name
        pid = (by_id and by_id.payer_id) or (by_name and by_name.payer_id) or payer_id
        payer_class = (by_id.payer_class if by_id else None) or (by_name.payer_class if by_name else None)
        return key, pid, payer_class


@dataclass(frozen=True)
class _EventInfo:
    """What the intake keeps about one event besides its money (PayerEvent.ref)."""

    payer: str  # the name as the file spells it
    payer_id: str | None
    identity: str
    payer_class: str | None
    entries: tuple[EntryFact, ...]
    stated_deadline: date | None = None  # a worklist export's own appeal deadline column


@dataclass
class _Payer:
    """One payer identity of a claim: its spellings and class, to match cases and CSV rows to it."""

    identity: str
    name: str
    payer_id: str | None
    payer_class: str | None
    names: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    from_835: bool = False

    def add(self, info: _EventInfo, source: str) -> None:
        if source == REMITTANCE and not self.from_835:
            self.name, self.payer_id, self.payer_class, self.from_835 = (
                info.payer,
                info.payer_id,
                info.payer_class,
                True,
            )
        self.payer_class = self.payer_class or info.payer_class
        self.names.add(normalized_payer_name(info.payer))
        if info.payer_id:
            self.ids.add(info.payer_id.upper())


# --- the ledger -----------------------------------------------------------------------------------

#: A row of ingestion.claim_event_entries (SQLAlchemy types a many-column Row more narrowly than is useful here).
EntryRow = Any


@dataclass(frozen=True)
class _RowPlace:
    entity: str
    claim_row: int  # the CLP row it hangs from (its own row number otherwise)
    transaction: int | None
    filing_indicator: str | None


@dataclass
class _Places:
    """Where the entries' import rows sit: their claim row, transaction and CLP06; their batch's kind
    and 835 remittances by transaction index."""

    rows: dict[int, _RowPlace] = field(default_factory=dict)
    batch_kind: dict[int, str] = field(default_factory=dict)
    stated: dict[int, date] = field(default_factory=dict)  # row id -> the export's own appeal deadline
    remittances: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)


def _ledger_events(db: Session, claim_keys: Sequence[str], aliases: _Aliases) -> dict[str, list[PayerEvent]]:
    """Claim key -> every posted event of the claim (all payers, all batches) as PayerEvents."""
    entries = ingestion.claim_event_entries(db, claim_keys, CLAIM_ENTRY_TYPES)
    places = _places(db, entries)
    grouped: dict[str, dict[tuple[Any, ...], list[EntryRow]]] = defaultdict(lambda: defaultdict(list))
    for e in entries:
        grouped[str(e.claim_key)][_event_key(e, places)].append(e)
    return {
        claim_key: [_event(key, rows, places, aliases) for key, rows in events.items()]
        for claim_key, events in grouped.items()
    }


def _places(db: Session, entries: Sequence[EntryRow]) -> _Places:
    out = _Places()
    _read_batches(db, sorted({int(e.batch_id) for e in entries}), out)
    own = _own_rows(db, sorted({int(e.row_id) for e in entries if e.row_id is not None}))
    parents = sorted({(r[0], r[3]) for r in own.values() if r[1] == "adjustment" and r[3] is not None})
    claim_rows = _claim_rows(db, parents)
    for row_id, (batch_id, entity, number, parent, txn, filing, stated) in own.items():
        if stated:
            out.stated[row_id] = date.fromisoformat(stated)
        if entity == "adjustment" and parent is not None:
            out.rows[row_id] = _RowPlace(entity, parent, *claim_rows.get((batch_id, parent), (None, None)))
        else:
            out.rows[row_id] = _RowPlace(entity, number, txn, filing)
    return out


def _read_batches(db: Session, batch_ids: Sequence[int], out: _Places) -> None:
    """Each batch's kind and the 835 remittances it posted, by transaction index."""
    for chunk in _chunks(batch_ids):
        for batch_id, kind, remittances in ingestion.batch_kinds_and_remittances(db, chunk):
            out.batch_kind[batch_id] = kind
            for r in remittances:
                if r.get("postedByBatchId") in (None, batch_id):
                    out.remittances[(batch_id, int(r["transactionIndex"]))] = r


_OwnRow = tuple[int, str, int, int | None, int | None, str | None, str | None]


def _own_rows(db: Session, row_ids: Sequence[int]) -> dict[int, _OwnRow]:
    """Row id -> (batch, entity, row number, parent row number, transaction index, CLP06, the export's
    appeal deadline)."""
    out: dict[int, _OwnRow] = {}
    for chunk in _chunks(row_ids):
        for r in ingestion.row_places(db, chunk):
            out[r[0]] = (r[1], r[2], r[3], r[4], r[5], r[6], r[7])
    return out


def _claim_rows(db: Session, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[int | None, str | None]]:
    """(batch, CLP row number) -> (transaction index, CLP06) for the claim rows adjustments hang from."""
    out: dict[tuple[int, int], tuple[int | None, str | None]] = {}
    for chunk in _chunks(keys):
        for batch_id, number, txn, filing in ingestion.remittance_claim_rows(db, chunk):
            out[(batch_id, number)] = (txn, filing)
    return out


def _is_tabular(kind: str | None) -> bool:
    return bool(kind) and not str(kind).startswith(("era_", "claims_"))


def _event_key(e: EntryRow, places: _Places) -> tuple[Any, ...]:
    """One event per CLP (its claim row), per PLB row, per tabular decision (batch, payer, date, payer claim number)."""
    if _is_tabular(places.batch_kind.get(e.batch_id)):
        when = e.payment_date.isoformat() if e.payment_date else ""
        return (TABULAR, e.batch_id, normalized_payer_name(e.payer), when, e.payer_claim_number or "")
    place = places.rows.get(e.row_id or 0)
    return (REMITTANCE, e.batch_id, place.claim_row if place else -(e.row_id or 0))


def _fact(e: EntryRow) -> EntryFact:
    return EntryFact(
        entry_type=e.entry_type,
        component=e.component,
        amount=Decimal(e.amount),
        claim_status_code=e.claim_status_code,
        group_code=e.group_code,
        carc=e.carc,
        rarcs=tuple(e.rarcs or ()),
        denial_category=e.denial_category,
        is_denial=e.is_denial,
        billed_amount=e.billed_amount,
        payer_claim_number=e.payer_claim_number,
        service_date=e.service_date,
    )


def _money_of(facts: Sequence[EntryFact]) -> tuple[Decimal, Decimal, Decimal]:
    """(paid, denied, taken back) of one event: the `paid` component; positive `denial` entries; a
    `recoupment`'s money, -amount (a negative CLP04, and a claim-linked PLB WO/FB, which posting negates:
    a positive PLB04 reduces the payment, X12 835 TR3 PLB04, so the entry is money leaving the claim)."""
    paid = sum((f.amount for f in facts if f.component == "paid"), ZERO)
    denied = sum((f.amount for f in facts if f.entry_type == "denial" and f.amount > 0), ZERO)
    taken = sum((-f.amount for f in facts if f.entry_type == "recoupment"), ZERO)
    return money(paid), money(denied), money(max(taken, ZERO))


def _event(key: tuple[Any, ...], rows: list[EntryRow], places: _Places, aliases: _Aliases) -> PayerEvent:
    facts = tuple(_fact(e) for e in rows)
    if key[0] == TABULAR:
        stated = max((places.stated[e.row_id] for e in rows if e.row_id in places.stated), default=None)
        return _tabular_event(key, rows[0], facts, aliases, stated)
    return _remittance_event(rows[0], facts, places, aliases)


def _tabular_event(
    key: tuple[Any, ...], first: EntryRow, facts: tuple[EntryFact, ...], aliases: _Aliases, stated: date | None
) -> PayerEvent:
    """A decision of the hospital's export: named by (payer, date, payer claim number), so the same
    denial exported again is one event (its first batch counts)."""
    paid, denied, taken = _money_of(facts)
    name = (first.payer or UNKNOWN_PAYER).strip().upper()
    payer_key, payer_id, alias_class = aliases.resolve(None, name)
    info = _EventInfo(first.payer or UNKNOWN_PAYER, payer_id, payer_id or payer_key, alias_class, facts, stated)
    order = EventOrder(payment_date=first.payment_date, claim=int(first.row_id or 0), batch=int(first.batch_id))
    return PayerEvent(order, paid, denied, taken, None, f"tabular|{key[2]}|{key[3]}|{key[4]}", TABULAR, info)


def _remittance_event(first: EntryRow, facts: tuple[EntryFact, ...], places: _Places, aliases: _Aliases) -> PayerEvent:
    """One CLP (or claim-linked PLB) of an 835, placed in the payer's order by its remittance."""
    paid, denied, taken = _money_of(facts)
    name = (first.payer or UNKNOWN_PAYER).strip().upper()
    place = places.rows.get(first.row_id or 0) or _RowPlace("", -(first.row_id or 0), None, None)
    remit = places.remittances.get((int(first.batch_id), place.transaction or 0)) or {}
    file_id = remit.get("payerId") or _id_from_key(remit.get("key"), name)
    payer_key, payer_id, alias_class = aliases.resolve(file_id, name)
    payer_class = alias_class or payer_class_of(place.filing_indicator)
    info = _EventInfo(first.payer or UNKNOWN_PAYER, payer_id, payer_id or payer_key, payer_class, facts)
    order = _order(remit, place, first)
    status = next((f.claim_status_code for f in facts if f.claim_status_code), None)
    return PayerEvent(order, paid, denied, taken, status, remit.get("key"), REMITTANCE, info)


def _order(remit: dict[str, Any], place: _RowPlace, first: EntryRow) -> EventOrder:
    """Payment date (BPR16), interchange date and time (ISA09/ISA10), ISA13, transaction, claim, batch."""
    paid_on = date.fromisoformat(remit["paymentDate"]) if remit.get("paymentDate") else first.payment_date
    return EventOrder(
        payment_date=paid_on,
        interchange_stamp=f"{remit.get('interchangeDate') or ''}{remit.get('interchangeTime') or ''}",
        interchange_control_number=str(remit.get("interchangeControlNumber") or ""),
        transaction=place.transaction or 0,
        claim=place.claim_row,
        batch=int(first.batch_id),
    )


def _id_from_key(key: str | None, name: str) -> str | None:
    """The payer id in a remittance identity key written before the key carried it (payer|trace|...)."""
    prefix = str(key or "").split("|", 1)[0].strip().upper()
    return prefix if prefix and prefix != name else None


def _cases_of(db: Session, claim_keys: Sequence[str]) -> dict[str, list[DenialCase]]:
    """Every case of these claims (any state, any origin), locked for the update, oldest first."""
    out: dict[str, list[DenialCase]] = defaultdict(list)
    found = db.scalars(
        select(DenialCase).where(DenialCase.claim_key.in_(claim_keys)).order_by(DenialCase.id).with_for_update()
    )
    for case in found:
        out[case.claim_key].append(case)
    return out


# --- one claim ------------------------------------------------------------------------------------


#: What a case adopted by an 835 payer takes from the 835's opening decision.
_FROM_THE_835 = (
    "payer",
    "payer_id",
    "payer_class",
    "event_kind",
    "claim_status_code",
    "payer_claim_number",
    "remittance_date",
    "billed_amount",
    "service_date",
    "denial_category",
    "group_code",
    "carc",
    "rarcs",
    "hard_or_soft",
    "preventable",
)


class _ClaimIntake:
    """One claim: its events by payer identity -> histories -> one case per episode."""

    def __init__(self, db: Session, batch: ingestion.PostedBatch, claim_key: str, cases: list[DenialCase]) -> None:
        self.db, self.batch, self.claim_key, self.cases = db, batch, claim_key, cases
        self.claimed: set[int] = set()
        self.payers: dict[str, _Payer] = {}
        self.changed: list[int] = []  # existing cases whose deadline facts changed

    def run(self, events: list[PayerEvent]) -> list[int]:
        by_identity = self._by_identity(events)
        opened: list[int] = []
        histories = [(self.payers[identity], history(by_identity[identity])) for identity in sorted(by_identity)]
        for payer, found in histories:
            for episode in found.episodes:
                new_id = self._show(payer, found, episode)
                if new_id is not None:
                    opened.append(new_id)
        # after every episode took its case: a worklist case no 835 episode adopted is contradicted
        for payer, found in histories:
            if payer.from_835:
                self._close_contradicted(payer, found)
        return opened + [c for c in self.changed if c not in opened]

    def _by_identity(self, events: list[PayerEvent]) -> dict[str, list[PayerEvent]]:
        """The 835 events by their payer identity, then each tabular event on the payer it matches."""
        out: dict[str, list[PayerEvent]] = defaultdict(list)
        for e in events:
            if e.source == REMITTANCE:
                self._payer(e.ref.identity, e.ref).add(e.ref, REMITTANCE)
                out[e.ref.identity].append(e)
        for e in events:
            if e.source == TABULAR:
                identity = self._match_tabular(e.ref)
                self._payer(identity, e.ref).add(e.ref, TABULAR)
                out[identity].append(e)
        for payer in self.payers.values():
            if payer.payer_class is None:
                payer.payer_class = payer_class_of_name(payer.name)
        return out

    def _payer(self, identity: str, info: _EventInfo) -> _Payer:
        if identity not in self.payers:
            self.payers[identity] = _Payer(identity, info.payer, info.payer_id, info.payer_class)
        return self.payers[identity]

    def _match_tabular(self, info: _EventInfo) -> str:
        """The 835 payer of the claim a CSV row is about: by id (alias), name, else payer class."""
        known = [p for p in self.payers.values() if p.from_835]
        name = normalized_payer_name(info.payer)
        for p in known:
            if info.identity == p.identity or (info.payer_id and info.payer_id.upper() in p.ids):
                return p.identity
        for p in known:
            if name in p.names:
                return p.identity
        wanted = info.payer_class or payer_class_of_name(info.payer)
        same_class = [p for p in known if wanted and p.payer_class == wanted]
        if len(same_class) == 1:
            return same_class[0].identity
        return info.identity

    # -- cases

    def _case_for(self, payer: _Payer, ordinal: int) -> DenialCase | None:
        """The case showing this episode: its own (identity, ordinal), else one this payer adopts (a
        case of the CSV opened before the 835, a migrated or hand-opened one, one from before episodes)."""
        free = [c for c in self.cases if c.id not in self.claimed]
        for c in free:
            if c.payer_identity == payer.identity and c.episode == ordinal:
                return c
        live = set(self.payers)
        for c in free:
            if (c.payer_identity is None or c.payer_identity not in live) and self._matches(c, payer):
                return c
        return None

    def _matches(self, case: DenialCase, payer: _Payer) -> bool:
        if case.payer_id and case.payer_id.strip().upper() in payer.ids:
            return True
        if normalized_payer_name(case.payer) in payer.names:
            return True
        same_class = [p for p in self.payers.values() if p.payer_class == payer.payer_class]
        return bool(case.payer_class) and case.payer_class == payer.payer_class and len(same_class) == 1

    def _show(self, payer: _Payer, found: History, episode: Episode) -> int | None:
        """Make a case show the episode (open one when none does); the new case's id."""
        case = self._case_for(payer, episode.ordinal)
        stated = _stated_deadline(found, episode)
        new_id = None
        if case is None:
            opening = opening_for(self._facts(payer, found, episode))
            new_id = self._open(opening)
            if new_id is None or episode.recovered > 0 or not episode.is_open or stated is not None:
                case = self.db.scalar(select(DenialCase).where(DenialCase.denial_key == opening.denial_key))
        if case is None:
            return new_id
        self.claimed.add(case.id)
        self._adopt(case, payer, found, episode)
        if stated is not None and case.stated_appeal_deadline != stated:
            # the deadline scheduler prefers the export's own date to the computed one
            case.stated_appeal_deadline = stated
            self.changed.append(case.id)
        when = found.events[episode.last_event].order.payment_date
        update = sync(_open_case(case), episode, found.paid_total, when)
        if update is not None:
            apply_ledger_update(self.db, case, update, batch_id=self.batch.id)
        return new_id

    def _close_contradicted(self, payer: _Payer, found: History) -> None:
        """A working case the hospital's worklist opened for this payer that no 835 episode shows: the payer's
        own remittances (the truth, X12 835 TR3 CLP02/CAS) deny nothing of it, so it is no denial. It leaves
        the working states as closed with no decision (no KPI counts it won or lost, nothing is written off),
        named by the 835's payer and out of any episode (episode None: a later real denial opens its own)."""
        live = set(self.payers)
        for case in self.cases:
            if case.id in self.claimed or case.state not in WORKING_STATES or case.origin != "remittance":
                continue
            if case.payer_identity in live or not self._matches(case, payer):
                continue  # an 835 payer's own case always shows an episode; another payer's is not ours
            self.claimed.add(case.id)
            last = next((e.order.payment_date for e in reversed(found.events) if e.source == REMITTANCE), None)
            reason = (
                f"the payer's {_remittance_of(last)} denies nothing on this claim (paid {found.paid_total:.2f}): "
                f"the worklist's denial of {Decimal(case.amount_at_stake):.2f} is not the payer's"
            )
            case.payer, case.payer_id, case.payer_class = payer.name, payer.payer_id, payer.payer_class
            case.payer_identity, case.episode = payer.identity, None
            case.last_update_reason = reason[:500]
            service.apply_move(
                self.db,
                case,
                CONTRADICTED_BY_THE_PAYER,
                reason=reason,
                user_id=None,
                kind="ledger_update",
                details={"batchId": self.batch.id, "paidTotal": f"{found.paid_total:.2f}"},
            )
            self.changed.append(case.id)

    def _facts(self, payer: _Payer, found: History, episode: Episode) -> EpisodeFacts:
        opening_event = found.events[episode.opened_by]
        info: _EventInfo = opening_event.ref
        return EpisodeFacts(
            claim_key=self.claim_key,
            payer=payer.name,
            payer_id=payer.payer_id,
            payer_identity=payer.identity,
            payer_class=payer.payer_class,
            ordinal=episode.ordinal,
            kind=episode.kind,
            amount_at_stake=episode.amount_at_stake,
            paid_before=episode.paid_before,
            remittance_date=episode.payment_date,
            entries=info.entries,
        )

    def _adopt(self, case: DenialCase, payer: _Payer, found: History, episode: Episode) -> None:
        """Name the case by its claim x payer x episode (a case adopted from before gets the key now);
        a case the 835 adopts (the CSV's, a migrated one) takes the 835's payer and classification."""
        if case.payer_identity == payer.identity and case.episode == episode.ordinal:
            return
        case.payer_identity, case.episode = payer.identity, episode.ordinal
        self.changed.append(case.id)
        case.denial_key = episode_key(self.claim_key, payer.identity, episode.ordinal)
        case.payer_id = case.payer_id or payer.payer_id
        if payer.from_835:
            opening = opening_for(self._facts(payer, found, episode))
            for name in _FROM_THE_835:
                value = getattr(opening, name)
                setattr(case, name, list(value) if name == "rarcs" else value)
        elif case.payer_class is None:
            case.payer_class = payer.payer_class
        self.db.flush()

    def _open(self, opening: CaseOpening) -> int | None:
        """Insert the case (nothing when its episode was opened before) and its `opened` event; the new id."""
        batch = self.batch
        new_id = service.insert_opening(
            self.db,
            opening,
            organization_id=batch.organization_id,
            client_id=batch.client_id,
            origin="remittance",
            source_batch_id=batch.id,
        )
        if new_id is not None:
            details = {
                "origin": "remittance",
                "batchId": batch.id,
                "amountAtStake": f"{opening.amount_at_stake:.2f}",
                "episode": opening.episode,
            }
            service.opened_event(
                self.db,
                new_id,
                organization_id=batch.organization_id,
                client_id=batch.client_id,
                actor_user_id=None,
                details=details,
            )
        return new_id


def _remittance_of(d: date | None) -> str:
    return f"remittance of {d.isoformat()}" if d else "remittance without a payment date"


def _stated_deadline(found: History, episode: Episode) -> date | None:
    """The appeal deadline the hospital's export states for the episode: its latest row that has one,
    up to the next episode's opening (from the claim's first event for the first episode: an export's
    denial date can come before the remittance's payment date)."""
    later = [e.opened_by for e in found.episodes if e.opened_by > episode.opened_by]
    start = 0 if episode.ordinal == 1 else episode.opened_by
    rows = found.events[start : min(later, default=len(found.events))]
    stated = [e.ref.stated_deadline for e in rows if e.source == TABULAR and e.ref.stated_deadline]
    return stated[-1] if stated else None


def _open_case(case: DenialCase) -> OpenCase:
    return OpenCase(
        id=case.id,
        state=case.state,
        amount_at_stake=Decimal(case.amount_at_stake),
        paid_before=Decimal(case.paid_before),
        recovered_amount=Decimal(case.recovered_amount),
        recorded_by_hand=Decimal(case.recovered_by_hand),
    )


def apply_ledger_update(db: Session, case: DenialCase, update: CaseUpdate, *, batch_id: int | None) -> None:
    """Record what the ledger says (at stake, paid before, recovered), and move a working case out of
    the working states when its episode is over (won / partially_won / lost)."""
    delta = money(update.recovered_amount - update.recovered_before)
    details: dict[str, Any] = {
        "batchId": batch_id,
        "recoveredBefore": f"{update.recovered_before:.2f}",
        "recovered": f"{update.recovered_amount:.2f}",
        "delta": f"{delta:.2f}",
        "paidIncrement": f"{update.paid_increment:.2f}",
    }
    if update.amount_at_stake is not None:
        details["amountAtStake"] = f"{update.amount_at_stake:.2f}"
        details["amountAtStakeBefore"] = f"{Decimal(case.amount_at_stake):.2f}"
        case.amount_at_stake = update.amount_at_stake
    if update.paid_before is not None:
        details["paidBefore"] = f"{update.paid_before:.2f}"
        case.paid_before = update.paid_before
    case.recovered_amount = update.recovered_amount
    case.last_update_reason = update.reason[:500]
    if update.move_to is not None and CASE.can(case.state, update.move_to):
        move(CASE, case.state, update.move_to)
        service.apply_move(
            db, case, update.move_to, reason=update.reason, user_id=None, kind="ledger_update", details=details
        )
        return
    service.add_event(
        db,
        case,
        "ledger_update",
        actor_user_id=None,
        reason=update.reason,
        from_state=case.state,
        to_state=case.state,
        details=details,
    )
    db.flush()
