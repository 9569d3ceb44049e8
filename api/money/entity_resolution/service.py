"""entityResolution: candidates, merges and splits of the session's client, and its payer aliases.
Functions take the tenant-scoped Session and plain values; they never commit (the executor commits the
call with its audit event). Messages name ids, states and payer spellings, never a patient's field.

Payer aliases are reconciliation's table (`payer_aliases`); a confirmed payer candidate is written
through reconciliation's service, the table's one writer in this context, as a payer-name alias (a
payer-id alias also re-schedules deadlines, which `payerRules.upsertAlias` does; ids are matched
exactly there, not guessed here).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, NotFound, PreconditionFailed
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id
from api.money.entity_resolution import normalize
from api.money.entity_resolution.models import Candidate, ClaimRecord, Link, PatientIdentity
from api.money.entity_resolution.payers import PayerCandidate, best_payers
from api.money.ingestion import service as ingestion
from api.money.reconciliation import service as reconciliation

PAYER_NAME = "payer_name"
#: At most this many spellings and known payers are compared per call (a tenant has hundreds).
MAX_PAYER_SPELLINGS = 2000


# --- candidates -----------------------------------------------------------------------------------


def candidate_statement(kind: str, min_score: float | None) -> Select[Any]:
    """Open candidates of a kind (patient | claim) at or above `min_score`; unordered, for paging."""
    stmt = select(Candidate).where(Candidate.kind == kind, Candidate.state == "open")
    return stmt if min_score is None else stmt.where(Candidate.score >= min_score)


def refs_of(db: Session, kind: str, ids: set[int], per_side: int = 5) -> dict[int, list[str]]:
    """The platform's references of each side: a claim record's key, or up to `per_side` claim keys of an
    identity (what a person looks up in the hospital's own system before confirming)."""
    refs: dict[int, list[str]] = {i: [] for i in ids}
    if not ids:
        return refs
    column = ClaimRecord.id if kind == "claim" else ClaimRecord.identity_id
    found = db.execute(
        select(column, ClaimRecord.claim_key, ClaimRecord.source)
        .where(column.in_(sorted(ids)))
        .order_by(ClaimRecord.id)
    )
    for subject, claim_key, source in found.tuples():
        label = f"{source}:{claim_key}"
        if subject is not None and len(refs[int(subject)]) < per_side and label not in refs[int(subject)]:
            refs[int(subject)].append(label)
    return refs


def _known_payers(db: Session) -> tuple[dict[str, str], set[str]]:
    """(normalized known spelling -> canonical payer key, every spelling already aliased or canonical)."""
    known: dict[str, str] = {}
    taken: set[str] = set()
    for alias in reconciliation.payer_aliases(db):
        canonical = normalize.alias_spelling(alias.canonical_payer_key)
        taken.update(
            {canonical, normalize.alias_spelling(alias.alias)} if alias.alias_kind == PAYER_NAME else {canonical}
        )
        for spelling in (alias.canonical_payer_key, alias.alias if alias.alias_kind == PAYER_NAME else ""):
            normalized = normalize.payer_name(spelling)
            if normalized:
                known.setdefault(normalized, alias.canonical_payer_key)
    return known, taken


def payer_spellings(db: Session) -> list[str]:
    """Payer names seen in the client's posted entries and registered claims (upper-cased, trimmed)."""
    seen = set(ingestion.payer_spellings(db, MAX_PAYER_SPELLINGS))
    stmt = select(ClaimRecord.payer_name).where(ClaimRecord.payer_name.is_not(None)).distinct()
    seen.update(normalize.alias_spelling(str(n)) for n in db.scalars(stmt.limit(MAX_PAYER_SPELLINGS)))
    return sorted(s for s in seen if s)[:MAX_PAYER_SPELLINGS]


def payer_candidates(db: Session, threshold: float) -> list[PayerCandidate]:
    """Spellings not aliased yet whose best known payer scores at or above `threshold`, best first."""
    known, taken = _known_payers(db)
    return best_payers([s for s in payer_spellings(db) if s not in taken], known, threshold)


# --- merge and split ------------------------------------------------------------------------------


def link_state(link: Link) -> dict[str, Any]:
    """The link as the audit records it (ids and payer spellings: no patient field)."""
    return {
        "kind": link.kind,
        "left_ref": link.left_ref,
        "right_ref": link.right_ref,
        "candidate_id": link.candidate_id,
        "state": link.state,
    }


def _active_link(db: Session, kind: str, left: str, right: str) -> Link | None:
    return db.scalar(
        select(Link).where(Link.kind == kind, Link.state == "active", Link.left_ref == left, Link.right_ref == right)
    )


def merge_records(db: Session, *, kind: str, left_id: int, right_id: int, user_id: int) -> Link:
    """Confirm that two identities (patient) or two claim records (claim) are one: a link; the pair's
    candidate, if any, leaves the open list. Another client's ids are NOT_FOUND."""
    if left_id == right_id:
        raise InvalidInput("leftId and rightId name the same record; a merge needs two")
    what = "Patient identity" if kind == "patient" else "Claim record"
    for ident in (left_id, right_id):
        if kind == "patient":
            get_by_id(db, PatientIdentity, ident, what)
        else:
            get_by_id(db, ClaimRecord, ident, what)
    low, high = sorted((left_id, right_id))
    if _active_link(db, kind, str(low), str(high)) is not None:
        raise Conflict(f"{what} {low} and {high} are merged already")
    candidate = db.scalar(
        select(Candidate).where(Candidate.kind == kind, Candidate.left_id == low, Candidate.right_id == high)
    )
    link = Link(
        kind=kind,
        left_ref=str(low),
        right_ref=str(high),
        candidate_id=candidate.id if candidate else None,
        score=candidate.score if candidate else None,
        merged_by=user_id,
    )
    if candidate is not None:
        candidate.state = "merged"
    db.add(link)
    db.flush()
    return link


def merge_payer(db: Session, *, spelling: str, canonical_payer_key: str, user_id: int) -> Link:
    """Confirm a payer spelling as an alias of a payer the client already has aliases for: written to
    `payer_aliases` (a payer-name alias, the canonical payer's id and class copied from its aliases)."""
    alias = normalize.alias_spelling(spelling)
    canonical = normalize.alias_spelling(canonical_payer_key)
    if not alias:
        raise InvalidInput("spelling is empty once trimmed")
    same_payer = [
        a for a in reconciliation.payer_aliases(db) if normalize.alias_spelling(a.canonical_payer_key) == canonical
    ]
    if not same_payer:
        raise NotFound(
            "No payer with this canonical payer key among this client's aliases (payerRules.upsertAlias adds one)"
        )
    if reconciliation.find_alias(db, alias_kind=PAYER_NAME, alias=alias) is not None:
        raise Conflict("This spelling is an alias already; change it with payerRules.upsertAlias")
    template = min(same_payer, key=lambda a: a.id)
    row, _ = reconciliation.upsert_alias(
        db,
        alias_kind=PAYER_NAME,
        alias=alias,
        canonical_payer_key=template.canonical_payer_key,
        canonical_payer_id=template.canonical_payer_id,
        payer_class=template.payer_class,
    )
    link = Link(
        kind="payer",
        left_ref=alias,
        right_ref=template.canonical_payer_key,
        merged_by=user_id,
        alias_written=reconciliation.alias_state(row),
    )
    db.add(link)
    db.flush()
    return link


def split(db: Session, *, link_id: int, reason: str, user_id: int) -> tuple[Link, dict[str, Any]]:
    """Undo a merge: the link stays, marked split (who, when, why); its candidate is open again; a payer
    alias it wrote is removed, unless someone changed it since (PRECONDITION_FAILED). Answers the link
    and its audit state before."""
    link = get_by_id(db, Link, link_id, "Link")
    before = link_state(link)
    if link.state != "active":
        raise PreconditionFailed(f"Link {link.id} is '{link.state}'; only an active link can be split")
    if link.kind == "payer":
        row = reconciliation.find_alias(db, alias_kind=PAYER_NAME, alias=link.left_ref)
        if row is None or reconciliation.alias_state(row) != link.alias_written:
            raise PreconditionFailed(
                f"The alias link {link.id} wrote changed since; change it with payerRules.upsertAlias"
            )
        reconciliation.remove_alias(db, row)
    elif link.candidate_id is not None:
        candidate = db.get(Candidate, link.candidate_id)
        if candidate is not None:
            candidate.state = "open"
    link.state, link.split_by, link.split_at, link.split_reason = "split", user_id, utcnow(), reason
    db.flush()
    return link, before


# --- payer aliases --------------------------------------------------------------------------------


def alias_statement(*, alias_kind: str | None, canonical_payer_key: str | None) -> Select[Any]:
    """The client's payer aliases, by kind and canonical payer when given (reconciliation's table)."""
    canonical = normalize.alias_spelling(canonical_payer_key) if canonical_payer_key else None
    return reconciliation.alias_statement(alias_kind=alias_kind, canonical_payer_key=canonical)


ALIAS_ID = reconciliation.ALIAS_ID
