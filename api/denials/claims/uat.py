"""Synthetic UAT: claims generated from a seed, a simulated submission, and the payer's answer as a
real 835 upload (it lands as an import batch the caller confirms through ingestion, like any file)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, PreconditionFailed
from api.denials.claims import synthetic
from api.denials.claims.lifecycle import ADJUDICATED_STATES, path_to
from api.denials.claims.models import Claim, ClaimLine, ClaimLink
from api.denials.claims.schemas import SyntheticResponseIn
from api.denials.claims.service import NewClaim, NewLine, create, get_claim
from api.denials.claims.transitions import move
from api.infra.db.base import utcnow
from api.money.ingestion import service as ingestion

SIMULATED = "synthetic UAT: submission simulated"


def _new_claim(claim: synthetic.SyntheticClaim) -> NewClaim:
    return NewClaim(
        claim_key=claim.claim_key,
        payer=claim.payer,
        payer_id=claim.payer_id,
        filing_indicator=claim.filing_indicator,
        statement_from=claim.statement_from,
        statement_to=claim.statement_to,
        facility_type=claim.facility_type,
        bill_type=claim.bill_type,
        diagnosis_codes=claim.diagnosis_codes,
        patient_ref=claim.patient_ref,
        lines=tuple(
            NewLine(
                procedure_code=line.procedure_code,
                revenue_code=line.revenue_code,
                units=line.units,
                charge=line.charge,
                service_date_from=line.service_date,
            )
            for line in claim.lines
        ),
    )


def create_synthetic_uat(db: Session, seed: int, count: int, user_id: int) -> tuple[int, list[Claim]]:
    """The seed's `count` synthetic claims in `draft` (flagged is_synthetic); (created now, all of them).
    A claim the seed made before is answered again, not duplicated."""
    generated = synthetic.generate(seed, count)
    keys = [c.claim_key for c in generated]
    existing = {c.claim_key: c for c in db.scalars(select(Claim).where(Claim.claim_key.in_(keys)))}
    if any(not c.is_synthetic for c in existing.values()):
        raise Conflict(f"A real claim already uses a claim key of seed {seed}; choose another 'seed'")
    created = 0
    out = []
    for spec in generated:
        claim = existing.get(spec.claim_key)
        if claim is None:
            claim = create(db, _new_claim(spec), user_id, origin="synthetic", seed=seed)
            created += 1
        out.append(claim)
    return created, out


def _synthetic(db: Session, claim_id: int) -> Claim:
    claim = get_claim(db, claim_id, for_update=True)
    if not claim.is_synthetic:
        raise PreconditionFailed(f"Claim {claim.id} is not synthetic; only synthetic UAT claims can be simulated")
    return claim


def simulate_submission(db: Session, claim_id: int, user_id: int) -> tuple[Claim, str]:
    """Walk a synthetic claim through the declared moves to `submitted`, each move recorded (the
    simulation stands in for the review and approval steps); (claim, state before)."""
    claim = _synthetic(db, claim_id)
    before = claim.state
    steps = path_to(claim.state, "submitted")
    if not steps:
        raise PreconditionFailed(
            f"The claim is '{claim.state}'; only a synthetic claim not yet submitted can be submitted",
            details={"currentState": claim.state},
        )
    for state in steps:
        move(db, claim, state, user_id, SIMULATED)
    return claim, before


def queue_response(
    db: Session, input: SyntheticResponseIn, user_id: int, settings: ingestion.LandingSettings
) -> tuple[Claim, int, str, bool, synthetic.Response, str]:
    """Build the payer's 835 for a submitted synthetic claim and upload it through ingestion; the batch
    waits for ingestion.confirmImportBatch like any upload. (claim, batch id, batch status, duplicate,
    response, trace)."""
    claim = _synthetic(db, input.id)
    if claim.state not in ADJUDICATED_STATES | {"submitted"}:
        raise PreconditionFailed(
            f"The claim is '{claim.state}'; a payer response can be queued once it is submitted",
            details={"currentState": claim.state},
        )
    response = synthetic.plan_response(
        claim.total_charge, input.outcome, input.paid_amount, input.group_code, input.carc
    )
    lines = db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id).order_by(ClaimLine.line_number))
    remit = synthetic.RemitClaim(
        claim_id=claim.id,
        claim_key=claim.claim_key,
        payer=claim.payer or "SYNTHETIC PAYER",
        payer_id=claim.payer_id,
        filing_indicator=claim.filing_indicator,
        total_charge=claim.total_charge,
        lines=tuple(
            synthetic.RemitLine(ln.procedure_code, tuple(ln.modifiers or ()), ln.units, ln.charge, ln.service_date_from)
            for ln in lines
        ),
    )
    sequence = 1 + (
        db.scalar(
            select(func.count()).select_from(ClaimLink).where(ClaimLink.claim_id == claim.id, ClaimLink.kind == "era")
        )
        or 0
    )
    paid_on = (claim.statement_to or utcnow().date()) + timedelta(days=20 + sequence)
    text = synthetic.build_835(remit, response, sequence=sequence, payment_date=paid_on)
    batch, duplicate = ingestion.upload(
        db,
        settings=settings,
        organization_id=claim.organization_id,
        client_id=claim.client_id,
        user_id=user_id,
        filename=f"synthetic_claim_{claim.id}_{sequence}.835",
        content_type="application/edi-x12",
        data=text.encode("ascii", errors="replace"),
        profile_name=None,
        accepts=frozenset({"x12_835"}),
        procedure="claims.queueSyntheticResponse",
    )
    trace = f"SYN{claim.id}R{sequence}"
    link = ClaimLink(
        claim_id=claim.id,
        kind="era",
        target_id=batch.id,
        reference=remit.payer[:200],
        details={"synthetic": True, "outcome": response.outcome, "traceNumber": trace, "paid": f"{response.paid:.2f}"},
        created_by=user_id,
    )
    if (
        db.scalar(
            select(ClaimLink.id).where(
                ClaimLink.claim_id == claim.id, ClaimLink.kind == "era", ClaimLink.target_id == batch.id
            )
        )
        is None
    ):
        db.add(link)
        db.flush()
    return claim, batch.id, batch.status, duplicate, response, trace
