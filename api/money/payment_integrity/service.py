"""Contract terms of a client in the operational DB (the marts price with them after the next pipeline run)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from api.core.errors import PreconditionFailed
from api.money.payment_integrity.models import ContractTerm
from pipelines.ingest import contract_terms


def store_uploaded_terms(db: Session, batch_id: int, rows: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """Store the confirmed rows (row number, canonical data) of a contract_terms upload; answer how many.

    The file replaces the client's stored terms of every (payer, plan) it names: a contract is
    re-uploaded whole when it changes, so an old rate never lingers beside its correction. Rows that
    still overlap (a repair can move dates) are PRECONDITION_FAILED, naming the rows."""
    checked = []
    for number, data in rows:
        term, errors = contract_terms.check_row(data)
        if term is None:
            raise PreconditionFailed(f"Row {number} is not a valid contract term: {'; '.join(errors)}")
        checked.append((number, term))
    overlapping = contract_terms.overlap_errors(checked)
    if overlapping:
        first = min(overlapping)
        raise PreconditionFailed(f"Row {first}: {overlapping[first][0]}; repair or exclude one of the rows")
    scopes = {(t.payer_key, t.plan_code) for _, t in checked}
    for payer_key, plan_code in scopes:
        plan = ContractTerm.plan_code.is_(None) if plan_code is None else ContractTerm.plan_code == plan_code
        db.execute(delete(ContractTerm).where(ContractTerm.payer_key == payer_key, plan))
    db.add_all(
        ContractTerm(
            batch_id=batch_id,
            source_row_number=number,
            payer_name=t.payer_name,
            payer_key=t.payer_key,
            payer_id=t.payer_id,
            plan_code=t.plan_code,
            method=t.method,
            procedure_code=t.procedure_code,
            modifier=t.modifier,
            drg_code=t.drg_code,
            rate=t.rate,
            percent_of_charges=t.percent_of_charges,
            lesser_of=t.lesser_of,
            effective_from=t.effective_from,
            effective_to=t.effective_to,
        )
        for number, t in checked
    )
    db.flush()
    return len(checked)


def contract_term_count(db: Session) -> int:
    """How many contract terms the session's client has."""
    return int(db.scalar(select(func.count(ContractTerm.id))) or 0)
