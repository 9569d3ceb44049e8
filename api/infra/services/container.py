"""The typed container of long-lived collaborators shared by every request.

Built once by the composition root (`api.app.build_services`) and handed to every call as
`ctx.services`. It lives in infra, not in the core: its fields are infrastructure (the database, the
job worker, the marts reader, the outbox, the signing keys), and what the platform provides (the
principal and tenant resolvers, the audit sink, the OIDC verifier) is typed by the core's ports
(`api.core.services`), so this package imports no platform or domain package and the core imports
none of this (tests/unit/test_architecture.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy.orm import Session

from api.core.hooks import Hook, Keyed
from api.core.identity import MembershipInfo, Principal, Tenant
from api.core.services import (
    ActionExecutedListener,
    AuditRecord,
    AuditSink,
    BatchPostedListener,
    CaseAssignedListener,
    CaseCategory,
    CaseCategoryOf,
    CaseOpenedListener,
    ConnectorProfileProvisioner,
    DraftDiscardedListener,
    IdentityVerifier,
    InterventionFacts,
    InterventionOf,
    MembershipDirectory,
    MembershipWriter,
    ModelProbabilities,
    OpenCase,
    OpenCaseKeys,
    OpenCasesOfClaims,
    OutcomeRecordedListener,
    OverturnFeatures,
    PauseGuard,
    PayloadChecker,
    PrincipalResolver,
    ResumeBlocker,
    RetentionSetter,
    SubmissionBlocker,
    SuccessProbability,
    TenantResolver,
)
from api.core.settings import Settings
from api.infra.db.session import Database
from api.infra.jobs.worker import Worker
from api.infra.outbox.service import Outbox
from api.infra.rate_limit.limiter import RateLimiter
from api.infra.signing.service import SigningKeys
from api.infra.snapshot.reader import MartReader


def _unconfigured_principal(db: Session, authorization: str | None) -> Principal:
    raise RuntimeError("no principal resolver configured")


def _unconfigured_tenant(db: Session, principal: Principal, client_header: str | None, permission: str) -> Tenant:
    raise RuntimeError("no tenant resolver configured")


def _unconfigured_memberships(db: Session, user_id: int) -> list[MembershipInfo]:
    raise RuntimeError("no membership directory configured")


def _unconfigured_audit(db: Session, entry: AuditRecord, /) -> None:
    raise RuntimeError("no audit sink configured")


def _unconfigured_open_case_keys(db: Session, /) -> list[str]:
    raise RuntimeError("no open-case directory configured")


def _unconfigured_open_cases(db: Session, claim_keys: Iterable[str], /) -> Mapping[str, OpenCase]:
    raise RuntimeError("no open-case directory configured")


def _unconfigured_profile_provisioner(db: Session, definition: dict[str, Any], user_id: int, /) -> str:
    raise RuntimeError("no connector profile provisioner configured")


def _unconfigured_retention_setter(db: Session, years: int, user_id: int, /) -> None:
    raise RuntimeError("no evidence retention setter configured")


def _unconfigured_case_category(db: Session, case_id: int, /) -> CaseCategory | None:
    raise RuntimeError("no case category reader configured")


def _unconfigured_intervention(db: Session, intervention_id: int, /) -> InterventionFacts | None:
    raise RuntimeError("no intervention reader configured")


def _unconfigured_success_model(
    db: Session, cases: Sequence[OverturnFeatures], today: date, /
) -> ModelProbabilities | None:
    raise RuntimeError("no outcome model reader configured")


def _unconfigured_pause_guard(db: Session, task: str, /) -> None:
    raise RuntimeError("no pause guard configured")


def _unconfigured_add_member(
    db: Session, organization_id: int, user_id: int, role: str, client_ids: Sequence[int] | None, /
) -> None:
    raise RuntimeError("no membership writer configured")


@dataclass
class Services:
    """Long-lived collaborators shared by every request."""

    settings: Settings
    database: Database
    oidc_verifier: IdentityVerifier | None = None
    signing_keys: SigningKeys | None = None
    job_worker: Worker | None = None  # None when settings.job_worker_enabled is false
    marts: MartReader | None = None
    # Mail leaving the platform (invitations), delivered after the queuing call commits.
    outbox: Outbox | None = None
    # Per-caller budgets of /api/rpc, charged by the router before a request's body is read; None: no limit.
    rate_limiter: RateLimiter | None = None
    resolve_principal: PrincipalResolver = field(default=_unconfigured_principal)
    resolve_tenant: TenantResolver = field(default=_unconfigured_tenant)
    memberships_of: MembershipDirectory = field(default=_unconfigured_memberships)
    audit: AuditSink = field(default=_unconfigured_audit)
    add_member: MembershipWriter = field(default=_unconfigured_add_member)
    # Whether an automated path may act now (operationalControl's pause), asked by approvedActions.
    require_not_paused: PauseGuard = field(default=_unconfigured_pause_guard)
    # Which claims have an open denial case, and which case (the cases' rule), asked by arOperations.
    open_case_claim_keys: OpenCaseKeys = field(default=_unconfigured_open_case_keys)
    open_cases_of_claims: OpenCasesOfClaims = field(default=_unconfigured_open_cases)
    # A new client's default connector profiles and evidence retention, set by hospitalOnboarding.
    provision_connector_profile: ConnectorProfileProvisioner = field(default=_unconfigured_profile_provisioner)
    set_evidence_retention: RetentionSetter = field(default=_unconfigured_retention_setter)
    # A case's denial category, which evidenceQuality scores its documents against.
    case_category_of: CaseCategoryOf = field(default=_unconfigured_case_category)
    # An intervention's pattern, action, start date and scope, which evidence measures.
    intervention_of: InterventionOf = field(default=_unconfigured_intervention)
    # P(success) by the client's outcome model where it beat the prior, which the worklist ranks by.
    success_probability: SuccessProbability = field(default=_unconfigured_success_model)
    # The installation's secret for keyed digests (audit inputs, throttle keys); kept under
    # DATA_DIR/keys, never in the database.
    digest_key: bytes = b""
    # Events other packages act on without being imported by the package raising them: each hook's
    # listeners run in subscription order inside the caller's transaction (api/core/hooks.py; the
    # listener protocols in api/core/services.py say what each event means and who raises it).
    batch_posted: Hook[BatchPostedListener] = field(default_factory=Hook)
    case_opened: Hook[CaseOpenedListener] = field(default_factory=Hook)
    case_assigned: Hook[CaseAssignedListener] = field(default_factory=Hook)
    outcome_recorded: Hook[OutcomeRecordedListener] = field(default_factory=Hook)
    draft_discarded: Hook[DraftDiscardedListener] = field(default_factory=Hook)
    action_executed: Hook[ActionExecutedListener] = field(default_factory=Hook)
    # Why automation may not resume or switch to automatic mode (operationalControl asks each in order).
    resume_blockers: Hook[ResumeBlocker] = field(default_factory=Hook)
    # Why a claim may not go to submission preparation (claims asks each in order; e.g. a missing prior
    # authorization).
    submission_blockers: Hook[SubmissionBlocker] = field(default_factory=Hook)
    # Who can tell an approved action's payload now, one per action kind (approvedActions asks).
    payload_checkers: Keyed[PayloadChecker] = field(default_factory=Keyed)

    def close(self) -> None:
        if self.job_worker is not None:
            self.job_worker.stop()
        self.database.dispose()
