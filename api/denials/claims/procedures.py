"""claims.*: claims and their lifecycle up to submission preparation, links to cases and remittances,
prepared (never sent) external actions, trading partner profiles, and synthetic UAT.

Every move follows the one table in `lifecycle.py` (any other is PRECONDITION_FAILED naming the
current state) and writes a transition record with who, when and why. Audit notes carry ids, states
and field names only: never the claim key, the patient or free text.
"""

from __future__ import annotations

from api.denials.claims import links, partners, service, uat
from api.denials.claims.models import Claim
from api.denials.claims.schemas import (
    AmountIn,
    AmountOut,
    AttachmentIn,
    AttachmentOut,
    ClaimDetailOut,
    ClaimLineIn,
    ClaimOut,
    ClaimRef,
    CorrectionIn,
    CreateIn,
    DenialLinkIn,
    DenialLinkOut,
    EraLinkOut,
    ExternalActionIn,
    ExternalActionOut,
    ListIn,
    MoveIn,
    PartnerProfileIn,
    PartnerProfileOut,
    PartnerReviewIn,
    ReasonIn,
    SyntheticResponseIn,
    SyntheticResponseOut,
    SyntheticUatIn,
    SyntheticUatOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("claims")


def _line(line: ClaimLineIn) -> service.NewLine:
    return service.NewLine(
        charge=line.charge,
        service_date_from=line.service_date_from,
        procedure_code=line.procedure_code,
        modifiers=tuple(line.modifiers),
        revenue_code=line.revenue_code,
        units=line.units,
        service_date_to=line.service_date_to,
        place_of_service=line.place_of_service,
    )


def _moved(ctx: Context, claim: Claim, before: str) -> ClaimOut:
    ctx.note("claim", claim.id, before={"state": before}, after={"state": claim.state})
    return ClaimOut.model_validate(service.summary(claim))


@router.mutation("create")
def create(ctx: Context, input: CreateIn) -> ClaimOut:
    """Create a claim by hand in `draft` with its service lines (the total is the sum of the line charges;
    a given `totalCharge` must match it). CONFLICT when the client already has the claim key."""
    new = service.NewClaim(
        claim_key=input.claim_key,
        payer=input.payer,
        statement_from=input.statement_from,
        statement_to=input.statement_to,
        lines=tuple(_line(line) for line in input.lines),
        total_charge=input.total_charge,
        payer_id=input.payer_id,
        filing_indicator=input.filing_indicator,
        facility_type=input.facility_type,
        bill_type=input.bill_type,
        place_of_service=input.place_of_service,
        plan=input.plan,
        diagnosis_codes=None if input.diagnosis_codes is None else tuple(input.diagnosis_codes),
        patient_ref=input.patient_ref,
    )
    claim = service.create(ctx.db, new, ctx.user_id)
    ctx.note("claim", claim.id, after={"state": claim.state, "origin": claim.origin, "lines": len(input.lines)})
    return ClaimOut.model_validate(service.summary(claim))


@router.query("get")
def get(ctx: Context, input: ClaimRef) -> ClaimDetailOut:
    """One claim with its lines, recorded amounts, attachments, links, prepared external actions and
    every transition (who, when, why); `allowedMoves` lists the states it may move to next."""
    claim = service.get_claim(ctx.db, input.id)
    return ClaimDetailOut.model_validate(service.detail(ctx.db, claim))


@router.query("list")
def list_(ctx: Context, input: ListIn) -> Page[ClaimOut]:
    """Claims of the selected client, newest first; filter by state, origin, payer, claim key, synthetic."""
    stmt = service.list_statement(
        state=input.state,
        origin=input.origin,
        payer=input.payer or None,  # an empty text filters nothing
        claim_key=input.claim_key or None,
        is_synthetic=input.is_synthetic,
    )
    return paginate(ctx.db, stmt, Claim.id, input, lambda claim: ClaimOut.model_validate(service.summary(claim)))


@router.mutation("review")
def review(ctx: Context, input: MoveIn) -> ClaimOut:
    """Put a draft (or corrected) claim in review: draft / corrected -> in_review."""
    claim, before = service.review(ctx.db, input.id, ctx.user_id, input.reason)
    return _moved(ctx, claim, before)


@router.mutation("withdraw")
def withdraw(ctx: Context, input: ReasonIn) -> ClaimOut:
    """Withdraw a claim that was not submitted yet, with a reason (final)."""
    claim, before = service.withdraw(ctx.db, input.id, ctx.user_id, input.reason)
    return _moved(ctx, claim, before)


@router.mutation("requestCorrection")
def request_correction(ctx: Context, input: ReasonIn) -> ClaimOut:
    """Send a claim in review (or ready for submission preparation) back for correction, saying what to fix:
    -> correction_requested."""
    claim, before = service.request_correction(ctx.db, input.id, ctx.user_id, input.reason)
    return _moved(ctx, claim, before)


@router.mutation("approveCorrection", permission="approve")
def approve_correction(ctx: Context, input: CorrectionIn) -> ClaimOut:
    """Accept the correction of a claim: correction_requested -> corrected, applying the corrected header
    fields (`changes`) and lines (`lines` replace the old ones, the total follows them)."""
    claim, before, changed = service.approve_correction(
        ctx.db,
        input.id,
        ctx.user_id,
        changes=None if input.changes is None else input.changes.model_dump(exclude_unset=True),
        lines=None if input.lines is None else [_line(line) for line in input.lines],
        reason=input.reason,
    )
    ctx.note("claim", claim.id, before={"state": before}, after={"state": claim.state, "changed": changed})
    return ClaimOut.model_validate(service.summary(claim))


@router.mutation("requestSubmissionPreparation")
def request_submission_preparation(ctx: Context, input: MoveIn) -> ClaimOut:
    """Ask for a reviewed claim to be prepared for submission: in_review -> ready_for_submission_preparation.
    The requester is recorded: someone else must approve. PRECONDITION_FAILED, naming each line and code,
    when a line needs a prior authorization the claim does not have (priorAuthorization.status says why)."""
    claim, before = service.request_submission_preparation(
        ctx.db, ctx.services.submission_blockers, input.id, ctx.user_id, input.reason
    )
    return _moved(ctx, claim, before)


@router.mutation("approveForSubmissionPreparation", permission="approve")
def approve_for_submission_preparation(ctx: Context, input: MoveIn) -> ClaimOut:
    """Approve a claim for submission preparation: ready_for_submission_preparation ->
    approved_for_submission_preparation. FORBIDDEN for the member who requested it (separation of duties)."""
    claim, before = service.approve_for_submission_preparation(
        ctx.db, input.id, ctx.user_id, input.reason, invited_window_days=ctx.services.settings.sod_invited_window_days
    )
    return _moved(ctx, claim, before)


@router.mutation("close")
def close(ctx: Context, input: MoveIn) -> ClaimOut:
    """Close an adjudicated claim (paid, partially paid or denied): nothing more is expected of it (final)."""
    claim, before = service.close(ctx.db, input.id, ctx.user_id, input.reason)
    return _moved(ctx, claim, before)


@router.mutation("addAttachment")
def add_attachment(ctx: Context, input: AttachmentIn) -> AttachmentOut:
    """Attach a reference to a supporting document (title, media type, SHA-256, size, storage reference);
    the bytes are not stored here. Refused on a closed or withdrawn claim."""
    attachment = service.add_attachment(
        ctx.db,
        input.id,
        ctx.user_id,
        title=input.title,
        media_type=input.media_type,
        sha256=input.sha256,
        size_bytes=input.size_bytes,
        storage_ref=input.storage_ref,
    )
    ctx.note("claim_attachment", attachment.id, after={"claim": input.id, "sha256": attachment.sha256})
    return AttachmentOut.model_validate(attachment)


@router.mutation("recordFinancialAmount")
def record_financial_amount(ctx: Context, input: AmountIn) -> AmountOut:
    """Record a money figure about a claim: kind (expected, billed, allowed, paid, patient), amount (two
    places, 0..9,999,999,999.99), source (contract, remittance, manual), optional reference; claims.get lists them."""
    amount = service.record_amount(
        ctx.db,
        input.id,
        ctx.user_id,
        kind=input.kind,
        amount=input.amount,
        source=input.source,
        reference=input.reference,
    )
    ctx.note(
        "claim_amount",
        amount.id,
        after={"claim": input.id, "kind": amount.kind, "amount": f"{amount.amount:.2f}", "source": amount.source},
    )
    return AmountOut.model_validate(amount)


@router.mutation("prepareDenialLink")
def prepare_denial_link(ctx: Context, input: DenialLinkIn) -> DenialLinkOut:
    """Link a claim to the denial cases opened for its claim key (or to the one `caseId`); NOT_FOUND
    when there is none. Linking again refreshes the link, never duplicates it."""
    claim, found = links.link_denial_cases(ctx.db, input.id, ctx.user_id, input.case_id)
    ctx.note("claim", claim.id, after={"denialCases": [link.target_id for link in found]})
    return DenialLinkOut.model_validate({"claim_id": claim.id, "links": found})


@router.mutation("prepareEraLink")
def prepare_era_link(ctx: Context, input: ClaimRef) -> EraLinkOut:
    """Link a claim to its remittance history: the posted ledger entries with its claim key, one link per
    import batch (with its payer), and the totals paid, denied, patient responsibility and adjusted."""
    claim, found, summary = links.link_remittances(ctx.db, input.id, ctx.user_id)
    ctx.note("claim", claim.id, after={"eraBatches": summary["batchIds"]})
    return EraLinkOut.model_validate(
        {
            "claim_id": claim.id,
            "links": found,
            "batch_ids": summary["batchIds"],
            "payers": summary["payers"],
            "entries": summary["entries"],
            "paid_total": summary["paidTotal"],
            "denied_total": summary["deniedTotal"],
            "patient_responsibility_total": summary["patientResponsibilityTotal"],
            "adjustment_total": summary["adjustmentTotal"],
            "last_payment_date": summary["lastPaymentDate"],
        }
    )


@router.mutation("prepareExternalAction")
def prepare_external_action(ctx: Context, input: ExternalActionIn) -> ExternalActionOut:
    """Prepare (never send) an action for another system: its exact payload from the claim (and an approved
    partner profile) with the payload's SHA-256, status `prepared`. submit_claim needs an approved claim,
    claim_status_inquiry a submitted one, send_attachments an attachment. The same payload twice answers
    the action prepared before."""
    action, again = partners.prepare_action(ctx.db, input, ctx.user_id)
    ctx.note(
        "claim_external_action", action.id, after={"claim": input.id, "digest": action.payload_sha256, "again": again}
    )
    return ExternalActionOut.model_validate(action)


@router.mutation("createPartnerProfileDraft")
def create_partner_profile_draft(ctx: Context, input: PartnerProfileIn) -> PartnerProfileOut:
    """Draft a trading partner profile (clearinghouse or payer: ISA qualifier and id, GS id, payer id,
    connection notes); another member reviews it."""
    profile = partners.create_profile_draft(ctx.db, input, ctx.user_id)
    ctx.note("partner_profile", profile.id, after={"status": profile.status, "kind": profile.kind})
    return PartnerProfileOut.model_validate(profile)


@router.mutation("reviewPartnerProfile", permission="approve")
def review_partner_profile(ctx: Context, input: PartnerReviewIn) -> PartnerProfileOut:
    """Approve or reject a draft partner profile. FORBIDDEN for its author (separation of duties);
    PRECONDITION_FAILED when it was reviewed already."""
    profile, before = partners.review_profile(
        ctx.db,
        input.id,
        input.decision,
        ctx.user_id,
        input.reason,
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    ctx.note("partner_profile", profile.id, before={"status": before}, after={"status": profile.status})
    return PartnerProfileOut.model_validate(profile)


@router.mutation("createSyntheticUat")
def create_synthetic_uat(ctx: Context, input: SyntheticUatIn) -> SyntheticUatOut:
    """Create `count` synthetic claims (flagged isSynthetic, keys SYN<seed>-NNNNN) in draft, generated from
    `seed` alone: the same seed gives the same claims, and calling again answers them without duplicates."""
    created, claims = uat.create_synthetic_uat(ctx.db, input.seed, input.count, ctx.user_id)
    ctx.note("synthetic_uat", input.seed, after={"created": created, "claims": [c.id for c in claims]})
    return SyntheticUatOut(
        seed=input.seed, created=created, claims=[ClaimOut.model_validate(service.summary(c)) for c in claims]
    )


@router.mutation("simulateSyntheticSubmission")
def simulate_synthetic_submission(ctx: Context, input: ClaimRef) -> ClaimOut:
    """Move a synthetic claim to `submitted` through the declared moves (each recorded); refused for a
    real claim and for one already submitted."""
    claim, before = uat.simulate_submission(ctx.db, input.id, ctx.user_id)
    return _moved(ctx, claim, before)


@router.mutation("queueSyntheticResponse")
def queue_synthetic_response(ctx: Context, input: SyntheticResponseIn) -> SyntheticResponseOut:
    """Write the payer's 835 for a submitted synthetic claim (paid, partially paid or denied) and upload it
    through the real ingestion path; answers the import batch, which ingestion.confirmImportBatch posts
    (and which then adjudicates the claim)."""
    claim, batch_id, batch_status, duplicate, response, trace = uat.queue_response(
        ctx.db, input, ctx.user_id, ctx.services.settings
    )
    ctx.note("import_batch", batch_id, after={"claim": claim.id, "outcome": response.outcome, "status": batch_status})
    return SyntheticResponseOut(
        claim_id=claim.id,
        batch_id=batch_id,
        batch_status=batch_status,
        duplicate=duplicate,
        outcome=response.outcome,
        paid_amount=response.paid,
        trace_number=trace,
    )
