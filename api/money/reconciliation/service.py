"""Published functions on reconciliation's operational tables (the payer aliases), for other contexts.

Payer aliases are written by `payerRules.upsertAlias` and read by the case intake, the deadlines'
facts and workflow readiness; they all come through here (plain values in, rows or plain values
out), never through `models`. Aliases are compared upper-cased and trimmed, as the marts do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from api.money.reconciliation.models import PayerAlias

#: The alias row the published functions answer: other contexts name it here, never through models.
Alias: TypeAlias = PayerAlias


def payer_aliases(db: Session) -> list[PayerAlias]:
    """Every payer alias of the session's client."""
    return list(db.scalars(select(PayerAlias)))


def payer_alias_count(db: Session) -> int:
    """How many payer aliases the session's client has."""
    return int(db.scalar(select(func.count(PayerAlias.id))) or 0)


def payer_id_aliases(db: Session, payer_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
    """Upper-cased payer id -> (canonical payer id, payer class) of the payer-id aliases among `payer_ids`
    (already upper-cased and trimmed)."""
    if not payer_ids:
        return {}
    spelled = func.upper(func.trim(PayerAlias.alias))
    found = db.execute(
        select(spelled, PayerAlias.canonical_payer_id, PayerAlias.payer_class).where(
            PayerAlias.alias_kind == "payer_id", spelled.in_(payer_ids)
        )
    )
    return {str(alias): (canonical, payer_class) for alias, canonical, payer_class in found.tuples()}


def alias_state(row: PayerAlias) -> dict[str, Any]:
    """The alias as the audit records it."""
    return {
        "alias_kind": row.alias_kind,
        "alias": row.alias,
        "canonical_payer_key": row.canonical_payer_key,
        "canonical_payer_id": row.canonical_payer_id,
        "payer_class": row.payer_class,
    }


def upsert_alias(
    db: Session,
    *,
    alias_kind: str,
    alias: str,
    canonical_payer_key: str,
    canonical_payer_id: str | None,
    payer_class: str | None,
) -> tuple[PayerAlias, dict[str, Any] | None]:
    """Insert or update one spelling of a payer (`alias` upper-cased and trimmed by the caller; one row per
    kind and spelling). Answers the row and its audit state before (None: inserted)."""
    row = db.scalar(
        select(PayerAlias).where(PayerAlias.alias_kind == alias_kind, func.upper(func.trim(PayerAlias.alias)) == alias)
    )
    before = alias_state(row) if row is not None else None
    if row is None:
        row = PayerAlias(alias_kind=alias_kind, alias=alias)
        db.add(row)
    row.canonical_payer_key, row.canonical_payer_id = canonical_payer_key, canonical_payer_id
    row.payer_class = payer_class
    db.flush()
    return row, before


def find_alias(db: Session, *, alias_kind: str, alias: str) -> PayerAlias | None:
    """The alias of this kind and spelling (`alias` upper-cased and trimmed by the caller), None if none."""
    return db.scalar(
        select(PayerAlias).where(PayerAlias.alias_kind == alias_kind, func.upper(func.trim(PayerAlias.alias)) == alias)
    )


def remove_alias(db: Session, row: PayerAlias) -> None:
    """Remove one alias: the undo of an alias a person confirmed and now splits (entityResolution.split
    keeps the history of it in its own links)."""
    db.delete(row)
    db.flush()


def alias_statement(*, alias_kind: str | None = None, canonical_payer_key: str | None = None) -> Select[Any]:
    """The client's aliases, filtered by kind and canonical payer when given; unordered, for paging."""
    stmt = select(PayerAlias)
    if alias_kind is not None:
        stmt = stmt.where(PayerAlias.alias_kind == alias_kind)
    if canonical_payer_key is not None:
        stmt = stmt.where(func.upper(func.trim(PayerAlias.canonical_payer_key)) == canonical_payer_key)
    return stmt


#: The id column the alias listing is paged by.
ALIAS_ID = PayerAlias.id
