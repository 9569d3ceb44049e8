"""Trading partner profiles (drafted by one member, reviewed by another) and the external actions a
claim is prepared for. Nothing here sends anything: an action is its exact payload and digest,
waiting for an integration to carry it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, Forbidden, PreconditionFailed
from api.core.lifecycle import machine, transition
from api.denials.claims.lifecycle import ADJUDICATED_STATES, FINAL_STATES
from api.denials.claims.models import Claim, ClaimAttachment, ClaimExternalAction, ClaimLine, PartnerProfile
from api.denials.claims.schemas import ExternalActionIn, PartnerProfileIn
from api.denials.claims.service import get_claim
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id
from api.platform.organizations.service import require_independent

PARTNER_PROFILE = machine("partner profile", {"draft": {"approved", "rejected"}, "approved": set(), "rejected": set()})

# The claim states each action may be prepared in.
ACTION_STATES: dict[str, frozenset[str]] = {
    "submit_claim": frozenset({"approved_for_submission_preparation"}),
    "claim_status_inquiry": frozenset({"submitted"}) | ADJUDICATED_STATES,
}


def get_profile(db: Session, profile_id: int, *, for_update: bool = False) -> PartnerProfile:
    return get_by_id(db, PartnerProfile, profile_id, "Partner profile", for_update=for_update)


def create_profile_draft(db: Session, input: PartnerProfileIn, user_id: int) -> PartnerProfile:
    """A partner profile in `draft`, authored by the caller; CONFLICT when the client has the name already."""
    if db.scalar(select(PartnerProfile.id).where(PartnerProfile.name == input.name)) is not None:
        raise Conflict("A partner profile with this 'name' already exists in this client")
    profile = PartnerProfile(**input.model_dump(), status="draft", author_user_id=user_id)
    db.add(profile)
    db.flush()
    return profile


def review_profile(
    db: Session, profile_id: int, decision: str, user_id: int, reason: str | None, *, invited_window_days: int
) -> tuple[PartnerProfile, str]:
    """draft -> approved / rejected, by someone other than the author (and, to approve, not invited by the
    author within `invited_window_days`); (profile, status before)."""
    profile = get_profile(db, profile_id, for_update=True)
    before = profile.status
    transition(PARTNER_PROFILE, before, decision)
    if profile.author_user_id == user_id:
        raise Forbidden("Separation of duties: you drafted this partner profile, so someone else must review it")
    if decision == "approved":
        require_independent(
            db,
            user_id,
            [profile.author_user_id],
            window_days=invited_window_days,
            requester="this partner profile's author",
        )
    profile.status = decision
    profile.reviewed_by, profile.reviewed_at, profile.review_reason = user_id, utcnow(), reason
    db.flush()
    return profile, before


def _digest(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _claim_payload(db: Session, claim: Claim) -> dict[str, Any]:
    lines = db.scalars(select(ClaimLine).where(ClaimLine.claim_id == claim.id).order_by(ClaimLine.line_number))
    return {
        "claimId": claim.id,
        "claimKey": claim.claim_key,
        "payer": claim.payer,
        "payerId": claim.payer_id,
        "filingIndicator": claim.filing_indicator,
        "statementFrom": claim.statement_from.isoformat() if claim.statement_from else None,
        "statementTo": claim.statement_to.isoformat() if claim.statement_to else None,
        "totalCharge": f"{claim.total_charge:.2f}",
        "facilityType": claim.facility_type,
        "billType": claim.bill_type,
        "diagnosisCodes": list(claim.diagnosis_codes or []),
        "patientRef": claim.patient_ref,
        "lines": [
            {
                "lineNumber": line.line_number,
                "procedureCode": line.procedure_code,
                "modifiers": list(line.modifiers or []),
                "revenueCode": line.revenue_code,
                "units": None if line.units is None else f"{line.units:f}",
                "charge": f"{line.charge:.2f}",
                "serviceDateFrom": line.service_date_from.isoformat() if line.service_date_from else None,
                "serviceDateTo": line.service_date_to.isoformat() if line.service_date_to else None,
            }
            for line in lines
        ],
    }


def _partner_payload(db: Session, profile_id: int | None) -> dict[str, Any] | None:
    if profile_id is None:
        return None
    profile = get_profile(db, profile_id)
    if profile.status != "approved":
        raise PreconditionFailed(
            f"Partner profile {profile.id} is '{profile.status}'; only an approved profile can be used"
        )
    return {
        "id": profile.id,
        "name": profile.name,
        "kind": profile.kind,
        "isaQualifier": profile.isa_qualifier,
        "isaId": profile.isa_id,
        "gsId": profile.gs_id,
        "payerId": profile.payer_id,
    }


def _check_action_state(db: Session, claim: Claim, action: str) -> list[ClaimAttachment]:
    """The claim's attachments; PRECONDITION_FAILED naming the state when the action does not fit it."""
    allowed = ACTION_STATES.get(action)
    if allowed is not None and claim.state not in allowed:
        raise PreconditionFailed(
            f"The claim is '{claim.state}'; '{action}' can be prepared only when it is {' or '.join(sorted(allowed))}"
        )
    if claim.state in FINAL_STATES:
        raise PreconditionFailed(f"The claim is '{claim.state}'; no external action can be prepared")
    attachments = list(
        db.scalars(select(ClaimAttachment).where(ClaimAttachment.claim_id == claim.id).order_by(ClaimAttachment.id))
    )
    if action == "send_attachments" and not attachments:
        raise PreconditionFailed("The claim has no attachments to send; add one with claims.addAttachment first")
    return attachments


def prepare_action(db: Session, input: ExternalActionIn, user_id: int) -> tuple[ClaimExternalAction, bool]:
    """The action with its exact payload and digest, `prepared` and never sent; (action, already prepared):
    preparing the same payload again answers the action prepared before."""
    claim = get_claim(db, input.id)
    attachments = _check_action_state(db, claim, input.action)
    payload: dict[str, Any] = {
        "targetSystem": input.target_system,
        "action": input.action,
        "claim": _claim_payload(db, claim),
        "partner": _partner_payload(db, input.partner_profile_id),
    }
    if input.action == "send_attachments":
        payload["attachments"] = [
            {"title": a.title, "mediaType": a.media_type, "sha256": a.sha256, "sizeBytes": a.size_bytes}
            for a in attachments
        ]
    digest = _digest(payload)
    existing = db.scalar(
        select(ClaimExternalAction).where(
            ClaimExternalAction.claim_id == claim.id, ClaimExternalAction.payload_sha256 == digest
        )
    )
    if existing is not None:
        return existing, True
    action = ClaimExternalAction(
        claim_id=claim.id,
        target_system=input.target_system,
        action=input.action,
        partner_profile_id=input.partner_profile_id,
        payload=payload,
        payload_sha256=digest,
        status="prepared",
        prepared_by=user_id,
    )
    db.add(action)
    db.flush()
    return action, False
