"""hospitalOnboarding.*: a hospital's onboarding request, from submission to a live client.

Organization-level records reached through the caller's current client (X-Client-Id), for
organization-wide members only (a request describes a hospital that is not a client yet, and the
organization's other prospects: a member reaching only some clients gets FORBIDDEN): any such member who
may write submits; organization admins review, decide (never their own request, nor one submitted by
whoever invited them within SOD_INVITED_WINDOW_DAYS), provision and move it. Provisioning invites the
hospital's users to the new client only, their tokens mailed through the outbox.
"""

from __future__ import annotations

from typing import Any

from api.infra.outbox.service import outbox_of
from api.platform.hospital_onboarding import service
from api.platform.hospital_onboarding.lifecycle import ONBOARDING
from api.platform.hospital_onboarding.models import OnboardingEvent, OnboardingRequest
from api.platform.hospital_onboarding.schemas import (
    DecideIn,
    EventOut,
    EventsIn,
    ListRequestsIn,
    ProvisionedInviteOut,
    ProvisionOut,
    RequestOut,
    RequestRef,
    ReviewIn,
    SubmitRequestIn,
    TransitionIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("hospitalOnboarding")


def _out(row: OnboardingRequest) -> RequestOut:
    return RequestOut.model_validate(
        {
            **{c: getattr(row, c) for c in RequestOut.model_fields if c != "allowed_moves"},
            "allowed_moves": sorted(ONBOARDING.allowed(row.state)),
        }
    )


def _audit_view(row: OnboardingRequest) -> dict[str, Any]:
    return {"state": row.state, "hospitalName": row.hospital_name, "clientId": row.provisioned_client_id}


@router.mutation("submitRequest")
def submit_request(ctx: Context, input: SubmitRequestIn) -> RequestOut:
    """Submit a hospital's onboarding request for the organization (legal details, expected volumes,
    payers, users to invite with their roles, connector kinds, evidence retention); it starts
    `submitted`. A hospital already a client of the organization is CONFLICT."""
    ctx.require_organization_wide("Hospital onboarding")
    row = service.submit(ctx.db, ctx.org_id, input.model_dump(), ctx.user_id)
    ctx.note("onboarding_request", row.id, after=_audit_view(row))
    return _out(row)


@router.query("getRequest")
def get_request(ctx: Context, input: RequestRef) -> RequestOut:
    """One onboarding request of the organization with its state and the moves it allows."""
    ctx.require_organization_wide("Hospital onboarding")
    return _out(service.get(ctx.db, input.id))


@router.query("listRequests")
def list_requests(ctx: Context, input: ListRequestsIn) -> Page[RequestOut]:
    """The organization's onboarding requests, newest first; filter by state."""
    ctx.require_organization_wide("Hospital onboarding")
    return paginate(ctx.db, service.list_statement(input.state), OnboardingRequest.id, input, _out)


@router.mutation("openReview", permission="manage")
def open_review(ctx: Context, input: ReviewIn) -> RequestOut:
    """Start (or resume after a hold) the review of a request: submitted | on_hold -> in_review."""
    ctx.require_organization_wide("Hospital onboarding")
    row = service.open_review(ctx.db, input.id, input.reason, ctx.user_id)
    ctx.note("onboarding_request", row.id, after=_audit_view(row))
    return _out(row)


@router.mutation("decide", permission="manage")
def decide(ctx: Context, input: DecideIn) -> RequestOut:
    """Approve or reject a request under review, with a reason. Whoever submitted the request may not
    decide it, nor may someone the submitter invited within SOD_INVITED_WINDOW_DAYS (FORBIDDEN, saying
    so); a request not in_review is PRECONDITION_FAILED."""
    ctx.require_organization_wide("Hospital onboarding")
    row = service.decide(
        ctx.db,
        input.id,
        input.decision,
        input.reason,
        ctx.user_id,
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    ctx.note("onboarding_request", row.id, after=_audit_view(row))
    return _out(row)


@router.mutation("provision", permission="manage")
def provision(ctx: Context, input: RequestRef) -> ProvisionOut:
    """Provision an approved request in one transaction: the client, invitations for the requested users
    reaching the new client only (their tokens mailed to them once the call commits, never answered), the
    default connector profiles, the evidence retention; automation stays off. Provisioning is once only:
    a second call finds the request `provisioned` (PRECONDITION_FAILED)."""
    ctx.require_organization_wide("Hospital onboarding")
    mailing = service.Mailing(outbox_of(ctx.services), ctx.services.settings.public_base_url)
    setup = service.ClientSetup(ctx.services.provision_connector_profile, ctx.services.set_evidence_retention)
    done = service.provision(ctx.db, input.id, ctx.user_id, mailing, setup)
    ctx.note(
        "onboarding_request",
        done.request.id,
        after={**_audit_view(done.request), "invitations": len(done.invitations)},
    )
    return ProvisionOut(
        request=_out(done.request),
        client_id=done.client.id,
        client_name=done.client.name,
        invitations=[ProvisionedInviteOut.model_validate(i) for i in done.invitations],
        already_members=done.already_members,
        connector_profiles=done.connector_profiles,
        retention_years=done.retention_years,
        automation_enabled=done.automation_enabled,
    )


@router.mutation("transitionLifecycle", permission="manage")
def transition_lifecycle(ctx: Context, input: TransitionIn) -> RequestOut:
    """Any other declared move, with a reason: put on hold, resume review, withdraw, go live, suspend a
    live client and bring it back. Undeclared moves are PRECONDITION_FAILED naming the current state."""
    ctx.require_organization_wide("Hospital onboarding")
    row = service.transition_lifecycle(ctx.db, input.id, input.to, input.reason, ctx.user_id)
    ctx.note("onboarding_request", row.id, after=_audit_view(row))
    return _out(row)


@router.query("lifecycleEvents")
def lifecycle_events(ctx: Context, input: EventsIn) -> Page[EventOut]:
    """Every move of a request (submission included): from and to which state, who, when and why,
    newest first."""
    ctx.require_organization_wide("Hospital onboarding")
    stmt = service.events_statement(ctx.db, input.id)
    return paginate(ctx.db, stmt, OnboardingEvent.id, input, EventOut.model_validate)
