"""payerKnowledge on the operational DB: record a version of a payer fact, read a payer's facts in force
on a day (with their history), search them.

Versioning is ``versions.place`` (pure): a new version closes the one before it, never deletes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Select, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from api.core.errors import InvalidInput
from api.intelligence.payer_knowledge import versions
from api.intelligence.payer_knowledge.models import PayerFact

#: what a fact can be about (the wire's `FactKind`)
KINDS = ("appeal_address", "portal", "phone", "fax", "filing_limit", "medical_policy", "other")
#: at most this many versions of one payer's facts in a `get` with history (newest first)
MAX_HISTORY = 500

#: the row other namespaces (payerApplicability) name
Fact = PayerFact


def payer_key_of(text: str) -> str:
    """The stored spelling of a payer key: trimmed, upper-cased (payer ids are compared that way)."""
    return text.strip().upper()


@dataclass(frozen=True, slots=True)
class NewFact:
    """One version of a fact about a payer, from ``effective_from`` (to ``effective_to``, None: until a
    newer version)."""

    payer_key: str
    kind: str
    value: str
    source: str
    effective_from: date
    label: str = ""
    payer_name: str | None = None
    effective_to: date | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    row: PayerFact
    created: bool
    closed: list[PayerFact]


def fact_state(row: PayerFact) -> dict[str, Any]:
    """The fact as the audit records it."""
    return {
        "payer_key": row.payer_key,
        "kind": row.kind,
        "label": row.label,
        "value": row.value,
        "source": row.source,
        "effective_from": row.effective_from.isoformat(),
        "effective_to": row.effective_to.isoformat() if row.effective_to else None,
    }


def _check(fact: NewFact) -> None:
    if fact.kind not in KINDS:
        raise InvalidInput(f"Invalid input: 'kind' must be one of {', '.join(KINDS)}")
    if not payer_key_of(fact.payer_key):
        raise InvalidInput("Invalid input: 'payerKey' is required (the payer id of the claims and remittances)")
    if not fact.value.strip() or not fact.source.strip():
        raise InvalidInput("Invalid input: 'value' and 'source' are required (the source: a URL or a document)")
    if fact.kind == "portal":
        parts = urlsplit(fact.value.strip())
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise InvalidInput("Invalid input: a portal's 'value' is its address, e.g. https://portal.example.com")


def _versions(db: Session, payer_key: str, kind: str, label: str) -> list[PayerFact]:
    stmt = select(PayerFact).where(PayerFact.payer_key == payer_key, PayerFact.kind == kind, PayerFact.label == label)
    return list(db.scalars(stmt.order_by(PayerFact.effective_from)))


def _same(row: PayerFact, fact: NewFact) -> bool:
    return (row.value, row.source, row.effective_to) == (fact.value, fact.source, fact.effective_to)


def record(db: Session, fact: NewFact, *, user_id: int) -> Recorded:
    """Store a version of a fact: it closes the version before it (``versions.place``); the same version
    again (same day, value, source and end) changes nothing; another one starting that day is CONFLICT.

    Two calls recording a new version of the same fact from the same day at the same time both read the
    versions before either committed (PostgreSQL's READ COMMITTED; SQLite's write lock serialises them
    before they read), and the unique constraint ``uq_payer_facts_version`` stops the second insert. That
    call is then decided again on what is stored now, as if it had come second: the same version is no
    change, another one from that day CONFLICT."""
    _check(fact)
    key = payer_key_of(fact.payer_key)
    try:
        with db.begin_nested():
            return _placed(db, fact, key, user_id)
    except IntegrityError:
        pass  # the savepoint is rolled back (the version it closed too); the other call's row is committed
    return _placed(db, fact, key, user_id)


def _placed(db: Session, fact: NewFact, key: str, user_id: int) -> Recorded:
    stored = _versions(db, key, fact.kind, fact.label)
    for row in stored:
        if row.effective_from == fact.effective_from and _same(row, fact):
            return Recorded(row, False, [])
    spans = [versions.Span(r.id, r.effective_from, r.effective_to) for r in stored]
    placed = versions.place(spans, fact.effective_from, fact.effective_to)
    by_id = {r.id: r for r in stored}
    closed = []
    for row_id, last_day in placed.closes:
        by_id[row_id].effective_to = last_day
        closed.append(by_id[row_id])
    row = PayerFact(
        payer_key=key,
        payer_name=fact.payer_name,
        kind=fact.kind,
        label=fact.label,
        value=fact.value,
        source=fact.source,
        effective_from=fact.effective_from,
        effective_to=placed.effective_to,
        recorded_by=user_id,
    )
    db.add(row)
    db.flush()
    return Recorded(row, True, closed)


def _in_force_on(on: date) -> ColumnElement[bool]:
    return (PayerFact.effective_from <= on) & or_(PayerFact.effective_to.is_(None), PayerFact.effective_to >= on)


def in_force(db: Session, payer_keys: Sequence[str], on: date) -> list[PayerFact]:
    """The facts of the payers (keys compared upper-cased) in force on ``on``, by payer, kind and label."""
    keys = sorted({payer_key_of(k) for k in payer_keys if k and k.strip()})
    if not keys:
        return []
    stmt = select(PayerFact).where(PayerFact.payer_key.in_(keys), _in_force_on(on))
    return list(db.scalars(stmt.order_by(PayerFact.payer_key, PayerFact.kind, PayerFact.label)))


@dataclass(frozen=True, slots=True)
class PayerFacts:
    payer_key: str
    payer_name: str | None
    facts: list[PayerFact]
    history: list[PayerFact]
    history_truncated: bool


def facts_of(db: Session, payer_key: str, on: date, *, history: bool) -> PayerFacts:
    """A payer's facts in force on ``on`` and, when asked, every version (newest start first, at most
    ``MAX_HISTORY``). A payer without facts answers empty lists (a key is a name, not a record)."""
    key = payer_key_of(payer_key)
    facts = in_force(db, [key], on)
    every: list[PayerFact] = []
    if history:
        stmt = select(PayerFact).where(PayerFact.payer_key == key)
        every = list(
            db.scalars(stmt.order_by(PayerFact.effective_from.desc(), PayerFact.id.desc()).limit(MAX_HISTORY + 1))
        )
    name = db.scalar(
        select(PayerFact.payer_name)
        .where(PayerFact.payer_key == key, PayerFact.payer_name.is_not(None))
        .order_by(PayerFact.id.desc())
        .limit(1)
    )
    return PayerFacts(key, name, facts, every[:MAX_HISTORY], len(every) > MAX_HISTORY)


def search_statement(text: str, *, kind: str | None, on: date | None) -> Select[Any]:
    """Facts whose payer key, payer name, kind or value contains ``text`` (case-insensitive; ``%`` and
    ``_`` are matched as themselves, not as LIKE wildcards), of ``kind`` when given, in force on ``on``
    (None: every version)."""
    needle = text.strip().lower()
    if not needle:
        raise InvalidInput("Invalid input: 'text' is required")
    columns = (PayerFact.payer_key, PayerFact.payer_name, PayerFact.kind, PayerFact.value)
    # the needle's % and _ (and the escape character itself) are escaped: a search for "50%" never
    # matches "500", and "_" never matches every character
    pattern = f"%{like_literal(needle)}%"
    stmt = select(PayerFact).where(or_(*(c.ilike(pattern, escape="/") for c in columns)))
    if kind is not None:
        stmt = stmt.where(PayerFact.kind == kind)
    if on is not None:
        stmt = stmt.where(_in_force_on(on))
    return stmt


def like_literal(text: str) -> str:
    """``text`` as a LIKE pattern matching itself, with ``/`` as the escape character."""
    return text.replace("/", "//").replace("%", "/%").replace("_", "/_")
