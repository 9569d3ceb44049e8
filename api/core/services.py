"""The typed container of long-lived collaborators shared by every request.

Built once by the composition root (`api.app.build_services`). The RPC layer
receives what it needs from here — the principal resolver, the tenant resolver
and the audit sink — instead of importing the platform packages that implement
them, so `api.rpc` depends on no domain package and the import graph has no
cycle (see tests/unit/test_architecture.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.orm import Session

from api.core.hooks import Hook, Keyed
from api.core.identity import MembershipInfo, Principal, Tenant
from api.core.settings import Settings

if TYPE_CHECKING:  # types only: infrastructure and platform packages import core, not the reverse
    from api.infra.db.session import Database
    from api.infra.jobs.worker import Worker
    from api.infra.marts.reader import MartReader
    from api.infra.outbox.service import Outbox
    from api.infra.signing.service import SigningKeys
    from api.platform.audit.anchor import AuditAnchor
    from api.platform.auth.oidc import OidcVerifier


class PrincipalResolver(Protocol):
    """Turns the `Authorization` header into a Principal or raises `Unauthenticated`."""

    def __call__(self, db: Session, authorization: str | None, /) -> Principal: ...


class TenantResolver(Protocol):
    """Chooses the tenant of a call and checks the permission, or raises `Forbidden`/`InvalidInput`."""

    def __call__(self, db: Session, principal: Principal, client_header: str | None, permission: str, /) -> Tenant: ...


class MembershipDirectory(Protocol):
    """The organizations a user belongs to (the identity layer asks; organizations answers)."""

    def __call__(self, db: Session, user_id: int, /) -> list[MembershipInfo]: ...


@dataclass(frozen=True)
class AuditRecord:
    """What one mutation tells the audit log (inputs are digested, never stored in clear)."""

    organization_id: int | None
    client_id: int | None
    actor_user_id: int | None
    actor_kind: str
    procedure: str
    input_value: Any
    target_type: str | None
    target_id: str | None
    before: Any
    after: Any


class MembershipWriter(Protocol):
    """Makes a user a member of an organization with a role, reaching `client_ids` (None: every client)
    (organizations answers; auth asks)."""

    def __call__(
        self, db: Session, organization_id: int, user_id: int, role: str, client_ids: Sequence[int] | None, /
    ) -> None: ...


class BatchPostedListener(Protocol):
    """Told, inside the confirm's own transaction, that an import batch's entries were just posted.

    Domains that act on posted money (denial cases open from a remittance, claims from an 837)
    subscribe here in the composition root, so ingestion never imports them. A listener raising an
    error rolls the whole confirm back: nothing is posted without its consequences."""

    def __call__(self, db: Session, batch_id: int, /) -> None: ...


class CaseOpenedListener(Protocol):
    """Told, in the opening transaction, which denial cases were just opened (by a confirmed remittance
    or by hand): their deadlines are scheduled this way, so the cases package never imports the
    packages that build on it."""

    def __call__(self, db: Session, case_ids: Sequence[int], /) -> None: ...


class CaseAssignedListener(Protocol):
    """Told, in the assigning transaction, that cases were given to an owner by a user (the owner is
    notified this way; the cases package does not import notifications)."""

    def __call__(self, db: Session, case_ids: Sequence[int], owner_user_id: int, by_user_id: int, /) -> None: ...


class OutcomeRecordedListener(Protocol):
    """Told, inside the call's own transaction, that a payer decision was recorded on a case (so
    whatever is computed from decisions, such as the worklist's overturn probabilities, follows).
    Subscribed in the composition root, so outcomes never imports its readers."""

    def __call__(self, db: Session, case_id: int, /) -> None: ...


class DraftDiscardedListener(Protocol):
    """Told, inside the discarding transaction, that a draft was discarded (its approval, pending or
    granted, becomes void this way: approvals imports drafts, so drafts cannot import approvals)."""

    def __call__(self, db: Session, draft_id: int, /) -> None: ...


class ActionExecutedListener(Protocol):
    """Told, inside the executing transaction, that an approved action ran (its state says how:
    executed or failed; its execution row holds the target's answer). The namespace whose payload it
    carried (an appeal packet) follows this way without approvedActions importing it. A listener
    raising an error rolls the execution back."""

    def __call__(self, db: Session, action_id: int, /) -> None: ...


class PayloadFacts(Protocol):
    """What a payload checker answers about an approved action's payload as it is now. Each owner
    (drafts, appeal packets) answers its own frozen dataclass of this shape, so it imports nothing
    from approvedActions."""

    @property
    def digest(self) -> str:
        """SHA-256 (lowercase hex) of the payload's content now."""

    @property
    def case_id(self) -> int:
        """The denial case the payload belongs to: the only case an action may carry it on."""

    @property
    def description(self) -> str:
        """The payload named by ids only (e.g. "appeal packet 12"), for messages; never content."""

    @property
    def authors(self) -> Mapping[int, str]:
        """user id -> what that person did to the payload ("assembled appeal packet 12"): none of them
        may approve an action carrying it (separation of duties)."""


class PayloadChecker(Protocol):
    """Answers, for one action kind, what the payload an action refers to is now (None: gone, discarded,
    of the wrong kind, not in this client, a malformed reference). Subscribed per kind in the
    composition root, so approvedActions never imports the namespaces owning payloads (drafts, appeal
    packets); see api/denials/approved_actions/payloads.py."""

    def __call__(self, db: Session, payload_ref: str, /) -> PayloadFacts | None: ...


class ResumeBlocker(Protocol):
    """The reasons automation of the session's client may not run now (empty: no objection). Asked by
    operationalControl.resume and by aiPlatform turning on automatic mode; subscribed in the
    composition root (activationGovernance's gates), so operationalControl imports none of them."""

    def __call__(self, db: Session, /) -> list[str]: ...


class AuditSink(Protocol):
    """Appends an audit record inside the caller's transaction."""

    def __call__(self, db: Session, entry: AuditRecord, /) -> None: ...


def _unconfigured_principal(db: Session, authorization: str | None) -> Principal:
    raise RuntimeError("no principal resolver configured")


def _unconfigured_tenant(db: Session, principal: Principal, client_header: str | None, permission: str) -> Tenant:
    raise RuntimeError("no tenant resolver configured")


def _unconfigured_memberships(db: Session, user_id: int) -> list[MembershipInfo]:
    raise RuntimeError("no membership directory configured")


def _unconfigured_audit(db: Session, entry: AuditRecord, /) -> None:
    raise RuntimeError("no audit sink configured")


def _unconfigured_add_member(
    db: Session, organization_id: int, user_id: int, role: str, client_ids: Sequence[int] | None, /
) -> None:
    raise RuntimeError("no membership writer configured")


@dataclass
class Services:
    """Long-lived collaborators shared by every request."""

    settings: Settings
    database: Database
    oidc_verifier: OidcVerifier | None = None
    signing_keys: SigningKeys | None = None
    job_worker: Worker | None = None  # None when settings.job_worker_enabled is false
    marts: MartReader | None = None
    # Mail leaving the platform (invitations), delivered after the queuing call commits.
    outbox: Outbox | None = None
    resolve_principal: PrincipalResolver = field(default=_unconfigured_principal)
    resolve_tenant: TenantResolver = field(default=_unconfigured_tenant)
    memberships_of: MembershipDirectory = field(default=_unconfigured_memberships)
    audit: AuditSink = field(default=_unconfigured_audit)
    add_member: MembershipWriter = field(default=_unconfigured_add_member)
    # The installation's secret for keyed digests (audit inputs, throttle keys); kept under
    # DATA_DIR/keys, never in the database.
    digest_key: bytes = b""
    audit_anchor: AuditAnchor | None = None
    # Events other packages act on without being imported by the package raising them: each hook's
    # listeners run in subscription order inside the caller's transaction (api/core/hooks.py; see the
    # listener protocols above for what each event means and who raises it).
    batch_posted: Hook[BatchPostedListener] = field(default_factory=Hook)
    case_opened: Hook[CaseOpenedListener] = field(default_factory=Hook)
    case_assigned: Hook[CaseAssignedListener] = field(default_factory=Hook)
    outcome_recorded: Hook[OutcomeRecordedListener] = field(default_factory=Hook)
    draft_discarded: Hook[DraftDiscardedListener] = field(default_factory=Hook)
    action_executed: Hook[ActionExecutedListener] = field(default_factory=Hook)
    # Why automation may not resume or switch to automatic mode (operationalControl asks each in order).
    resume_blockers: Hook[ResumeBlocker] = field(default_factory=Hook)
    # Who can tell an approved action's payload now, one per action kind (approvedActions asks).
    payload_checkers: Keyed[PayloadChecker] = field(default_factory=Keyed)

    def close(self) -> None:
        if self.job_worker is not None:
            self.job_worker.stop()
        self.database.dispose()
