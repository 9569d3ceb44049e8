"""Tying a claim to its denial cases and to its remittance history in the ledger."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import NotFound
from api.denials.cases.models import DenialCase
from api.denials.claims.models import Claim, ClaimLink
from api.denials.claims.service import get_claim
from api.money.ingestion import service as ingestion

# What a remittance posts about a claim; charges (837, claims exports) and deposits are not its history.
REMITTANCE_ENTRY_TYPES = (
    "payment",
    "adjustment",
    "patient_responsibility",
    "denial",
    "reversal",
    "recoupment",
)


def _link(db: Session, claim: Claim, kind: str, target_id: int, user_id: int, **fields: Any) -> ClaimLink:
    """The claim's link to `target_id`, created once and refreshed on later calls (idempotent)."""
    link = db.scalar(
        select(ClaimLink).where(
            ClaimLink.claim_id == claim.id, ClaimLink.kind == kind, ClaimLink.target_id == target_id
        )
    )
    if link is None:
        link = ClaimLink(claim_id=claim.id, kind=kind, target_id=target_id, created_by=user_id, **fields)
        db.add(link)
    else:
        for name, value in fields.items():
            setattr(link, name, value)
    db.flush()
    return link


def link_denial_cases(db: Session, claim_id: int, user_id: int, case_id: int | None) -> tuple[Claim, list[ClaimLink]]:
    """Link the claim to the denial cases opened for its claim key (or to the one case named);
    NOT_FOUND when the client has no such case."""
    claim = get_claim(db, claim_id)
    stmt = select(DenialCase).where(DenialCase.claim_key == claim.claim_key).order_by(DenialCase.id)
    if case_id is not None:
        stmt = stmt.where(DenialCase.id == case_id)
    cases = list(db.scalars(stmt))
    if not cases:
        which = f"denial case {case_id} for this claim" if case_id is not None else "denial case for this claim"
        raise NotFound(f"No {which} was found in this client")
    links = [
        _link(
            db,
            claim,
            "denial_case",
            case.id,
            user_id,
            reference=case.payer[:200],
            details={"state": case.state, "eventKind": case.event_kind, "denialCategory": case.denial_category},
        )
        for case in cases
    ]
    return claim, links


def link_remittances(db: Session, claim_id: int, user_id: int) -> tuple[Claim, list[ClaimLink], dict[str, Any]]:
    """Link the claim to every import batch that posted remittance entries for its claim key, one link
    per batch (reference: its payer), and summarise that history; an empty history links nothing."""
    claim = get_claim(db, claim_id)
    entries = ingestion.claim_entries(db, claim.claim_key, REMITTANCE_ENTRY_TYPES)
    summary = summarise(entries)
    by_batch: dict[int, list[ingestion.PostedEntry]] = defaultdict(list)
    for entry in entries:
        by_batch[entry.batch_id].append(entry)
    links = [
        _link(
            db,
            claim,
            "era",
            batch_id,
            user_id,
            reference=(next((e.payer for e in batch if e.payer), None) or "")[:200] or None,
            details=summarise(batch) | {"batchIds": [batch_id]},
        )
        for batch_id, batch in sorted(by_batch.items())
    ]
    return claim, links, summary


def summarise(entries: list[ingestion.PostedEntry]) -> dict[str, Any]:
    """Totals of a claim's remittance entries (money as exact decimal strings for the link details)."""

    def total(keep: Any) -> str:
        return f"{sum((e.amount for e in entries if keep(e)), Decimal('0.00')):.2f}"

    paid_dates: list[date] = [e.payment_date for e in entries if e.payment_date is not None]
    return {
        "batchIds": sorted({e.batch_id for e in entries}),
        "payers": sorted({e.payer for e in entries if e.payer}),
        "entries": len(entries),
        # net of reversals and recoupments: every CLP04 posted for the claim
        "paidTotal": total(lambda e: e.component == "paid"),
        "deniedTotal": total(lambda e: e.is_denial),
        "patientResponsibilityTotal": total(lambda e: e.entry_type == "patient_responsibility"),
        # the other CAS amounts (contractual and other adjustments, reversals of them)
        "adjustmentTotal": total(
            lambda e: e.component == "cas" and not e.is_denial and e.entry_type != "patient_responsibility"
        ),
        "lastPaymentDate": max(paid_dates).isoformat() if paid_dates else None,
    }
