"""Onboarding requests: submission, review, decision, provisioning and the other lifecycle moves.

Never commits (the executor commits with the audit event). Messages name states and fields, never the
request's contact details.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, NotFound
from api.core.lifecycle import transition
from api.core.services import ConnectorProfileProvisioner, RetentionSetter
from api.infra.db.base import utcnow
from api.infra.db.lookup import where_given
from api.infra.db.tenant_filter import TenantScope, get_scope, set_scope
from api.infra.outbox.service import Outbox
from api.platform.auth import service as auth_service
from api.platform.auth.models import User
from api.platform.hospital_onboarding import connectors
from api.platform.hospital_onboarding.lifecycle import (
    INITIAL_STATE,
    ONBOARDING,
    check_decider,
    decision_move,
    generic_move,
)
from api.platform.hospital_onboarding.models import OnboardingEvent, OnboardingRequest
from api.platform.organizations import service as organizations_service
from api.platform.organizations.independence import require_independent
from api.platform.organizations.models import Client, Membership


@dataclass
class ProvisionedInvite:
    invitation_id: int
    email: str
    role: str
    client_ids: list[int]
    expires_at: datetime


@dataclass
class Provisioned:
    request: OnboardingRequest
    client: Client
    invitations: list[ProvisionedInvite] = field(default_factory=list)
    already_members: list[str] = field(default_factory=list)
    connector_profiles: list[str] = field(default_factory=list)
    retention_years: int = 0
    automation_enabled: bool = False


def get(db: Session, request_id: int, *, lock: bool = False) -> OnboardingRequest:
    stmt = select(OnboardingRequest).where(OnboardingRequest.id == request_id)
    row = db.scalar(stmt.with_for_update() if lock else stmt)
    if row is None:
        raise NotFound(f"Onboarding request {request_id} was not found in this organization")
    return row


def _client_named(db: Session, name: str) -> bool:
    return db.scalar(select(Client.id).where(Client.name == name)) is not None


def _record(db: Session, row: OnboardingRequest, from_state: str | None, reason: str, user_id: int) -> None:
    db.add(
        OnboardingEvent(
            organization_id=row.organization_id,
            request_id=row.id,
            from_state=from_state,
            to_state=row.state,
            reason=reason,
            actor_user_id=user_id,
        )
    )
    db.flush()


def _move(db: Session, row: OnboardingRequest, target: str, reason: str, user_id: int) -> None:
    """Set the state (already checked against the lifecycle) and record the move."""
    before = row.state
    row.state = target
    row.state_changed_at = utcnow()
    _record(db, row, before, reason, user_id)


def submit(db: Session, organization_id: int, details: dict[str, Any], user_id: int) -> OnboardingRequest:
    """A new request in `submitted`; the hospital may not already be a client of the organization."""
    if _client_named(db, details["hospital_name"]):
        raise Conflict("This organization already has a client with this 'hospitalName'; choose another name")
    row = OnboardingRequest(
        organization_id=organization_id,
        hospital_name=details["hospital_name"],
        legal=details["legal"],
        contact_email=auth_service.normalise_email(details["contact_email"]),
        expected_volumes=details["expected_volumes"],
        payers=details["payers"],
        requested_users=[{**u, "email": auth_service.normalise_email(u["email"])} for u in details["requested_users"]],
        connector_kinds=details["connector_kinds"],
        retention_years=details["retention_years"],
        state=INITIAL_STATE,
        state_changed_at=utcnow(),
        submitted_by_user_id=user_id,
    )
    db.add(row)
    db.flush()
    _record(db, row, None, "Submitted", user_id)
    return row


def open_review(db: Session, request_id: int, reason: str, user_id: int) -> OnboardingRequest:
    row = get(db, request_id, lock=True)
    _move(db, row, transition(ONBOARDING, row.state, "in_review"), reason, user_id)
    return row


def decide(
    db: Session, request_id: int, decision: str, reason: str, user_id: int, *, invited_window_days: int
) -> OnboardingRequest:
    """Approve or reject a request under review; the submitter never decides their own request, nor does
    someone the submitter invited within the window (separation of duties)."""
    row = get(db, request_id, lock=True)
    check_decider(row.submitted_by_user_id, user_id)
    if decision == "approved":  # a rejection grants nothing
        require_independent(
            db,
            user_id,
            [row.submitted_by_user_id],
            window_days=invited_window_days,
            requester="this request's submitter",
        )
    target = decision_move(row.state, decision)
    row.decided_by_user_id, row.decided_at, row.decision_reason = user_id, utcnow(), reason
    _move(db, row, target, reason, user_id)
    return row


def transition_lifecycle(db: Session, request_id: int, to: str, reason: str, user_id: int) -> OnboardingRequest:
    row = get(db, request_id, lock=True)
    _move(db, row, generic_move(row.state, to), reason, user_id)
    return row


def events_statement(db: Session, request_id: int) -> Select[Any]:
    get(db, request_id)  # NOT_FOUND for another organization's request
    return select(OnboardingEvent).where(OnboardingEvent.request_id == request_id)


def list_statement(state: str | None) -> Select[Any]:
    """Onboarding requests by state (when given); unordered, for paging."""
    return where_given(select(OnboardingRequest), (OnboardingRequest.state, state))


# --- provisioning ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mailing:
    """How provisioning sends its invitations: the outbox, and the platform address the mail names."""

    outbox: Outbox
    public_base_url: str


@dataclass(frozen=True)
class ClientSetup:
    """How a new client's own settings in other contexts are made (the services' ports): its default
    connector profiles (integrations) and its evidence retention (evidence)."""

    provision_connector_profile: ConnectorProfileProvisioner
    set_evidence_retention: RetentionSetter


def provision(db: Session, request_id: int, user_id: int, mailing: Mailing, setup: ClientSetup) -> Provisioned:
    """Create the approved request's client with its invitations (each reaching the new client only, its
    token mailed through the outbox once this call commits), connector profiles and evidence retention,
    all in the caller's transaction. A request not in `approved` (a second provision finds it
    `provisioned`) is PRECONDITION_FAILED naming its state, and nothing is created."""
    row = get(db, request_id, lock=True)
    target = transition(ONBOARDING, row.state, "provisioned")
    client = organizations_service.add_client(db, row.organization_id, row.hospital_name, row.legal.get("npi"))
    result = Provisioned(request=row, client=client, retention_years=row.retention_years)
    _invite(db, row, result, mailing, user_id)
    with _client_scope(db, row.organization_id, client.id):
        for kind in row.connector_kinds:
            definition = connectors.default_profile(kind)
            if definition is not None:
                result.connector_profiles.append(setup.provision_connector_profile(db, definition, user_id))
        setup.set_evidence_retention(db, row.retention_years, user_id)
    row.provisioned_client_id, row.provisioned_by_user_id, row.provisioned_at = client.id, user_id, utcnow()
    _move(db, row, target, f"Provisioned as client {client.id}", user_id)
    return result


def _member_emails(db: Session, organization_id: int) -> set[str]:
    rows = db.scalars(
        select(User.email)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.organization_id == organization_id)
    )
    return set(rows)


def _invite(db: Session, row: OnboardingRequest, result: Provisioned, mailing: Mailing, user_id: int) -> None:
    """The hospital's users reach the hospital's own client only: never the organization's other clients."""
    members = _member_emails(db, row.organization_id)
    for user in row.requested_users:
        if user["email"] in members:
            result.already_members.append(user["email"])
            continue
        invite = organizations_service.invite(
            db,
            mailing.outbox,
            organization_id=row.organization_id,
            email=user["email"],
            role=user["role"],
            invited_by=user_id,
            client_ids=[result.client.id],
            public_base_url=mailing.public_base_url,
            display_name=user.get("display_name", ""),
        )
        result.invitations.append(
            ProvisionedInvite(invite.id, invite.email, invite.role, list(invite.client_ids or ()), invite.expires_at)
        )


@contextmanager
def _client_scope(db: Session, organization_id: int, client_id: int) -> Iterator[None]:
    """Run tenant-scoped services (connector profiles, evidence retention) as the new client."""
    previous = get_scope(db)
    db.flush()
    set_scope(db, TenantScope(organization_id, client_id))
    try:
        yield
        db.flush()
    finally:
        set_scope(db, previous)
