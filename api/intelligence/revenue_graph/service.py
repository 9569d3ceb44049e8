"""revenueGraph on the operational DB: a claim's records read through their owners' published services
(claims; ingestion's posted ledger; cases; outcomes), as plain records for the pure `lineage` builder."""

from __future__ import annotations

from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, NotFound
from api.denials.cases import service as cases
from api.denials.claims import service as claims
from api.denials.outcomes import service as outcomes
from api.intelligence.revenue_graph import lineage
from api.money.ingestion import service as ingestion

#: at most this many ledger entries of a claim are read (a claim has a handful; a pathological one is cut)
MAX_ENTRIES = 2000


def _claim(db: Session, claim_id: int | None, claim_key: str | None) -> claims.ClaimRow:
    if (claim_id is None) == (claim_key is None):
        raise InvalidInput("Invalid input: give exactly one of 'claimId' and 'claimKey'")
    if claim_id is not None:
        return claims.get_claim(db, claim_id)
    found = claims.claim_with_key(db, claim_key or "")
    if found is None:
        raise NotFound("Claim not found: no claim of this client has that claim key")
    return found


def _entry(e: ingestion.LedgerEntry) -> lineage.Entry:
    return lineage.Entry(
        id=e.id,
        batch_id=e.batch_id,
        claim_row=e.claim_row,
        entry_type=e.entry_type,
        component=e.component,
        amount=e.amount,
        payer=e.payer,
        claim_status_code=e.claim_status_code,
        billed_amount=e.billed_amount,
        group_code=e.group_code,
        carc=e.carc,
        is_denial=e.is_denial,
        payment_date=e.payment_date,
        reference=e.reference,
        reverses_entry_id=e.reverses_entry_id,
    )


def _case(c: cases.Case) -> lineage.Case:
    return lineage.Case(
        id=c.id,
        payer=c.payer,
        state=c.state,
        event_kind=c.event_kind,
        amount_at_stake=c.amount_at_stake,
        recovered_amount=c.recovered_amount,
        written_off_amount=c.written_off_amount,
        denial_category=c.denial_category,
        carc=c.carc,
        remittance_date=c.remittance_date,
        source_batch_id=c.source_batch_id,
    )


def _outcome(o: outcomes.OutcomeRow) -> lineage.Outcome:
    return lineage.Outcome(o.id, o.case_id, o.level, o.decision, o.amount_recovered, o.decided_on)


def for_claim(
    db: Session, *, claim_id: int | None, claim_key: str | None, max_nodes: int
) -> tuple[lineage.ClaimFacts, lineage.Lineage]:
    """The client's claim (by id or claim key; NOT_FOUND otherwise) and its lineage."""
    found = _claim(db, claim_id, claim_key)
    claim = lineage.ClaimFacts(
        found.id,
        found.claim_key,
        found.payer,
        found.total_charge,
        found.state,
        found.statement_from,
        found.statement_to,
    )
    entries = [_entry(e) for e in ingestion.claim_ledger(db, found.claim_key, MAX_ENTRIES)]
    its_cases = cases.cases_of_claim(db, found.claim_key)
    decided = outcomes.outcomes_of_cases(db, [c.id for c in its_cases])
    built = lineage.build(
        claim, entries, [_case(c) for c in its_cases], [_outcome(o) for o in decided], max_nodes=max_nodes
    )
    return claim, built
