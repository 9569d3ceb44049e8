"""The ports of the shared services: what the RPC layer and the domains ask of one another.

Each protocol here names a collaborator by what it does, not by the package that implements it: the
RPC layer receives the principal resolver, the tenant resolver and the audit sink, and the domains
receive the hooks' listeners, without importing the platform packages that implement them. The
concrete container holding them (with the database, the job worker, the marts reader, ...) is
`api.infra.services.container.Services`, built by the composition root (`api.app.build_services`):
the core names no infrastructure and no platform type, so it imports nothing else from `api`
(tests/unit/test_architecture.py counts type-only imports too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy.orm import Session

from api.core.identity import MembershipInfo, Principal, Tenant, VerifiedIdentity


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


class PauseGuard(Protocol):
    """Refuses (PRECONDITION_FAILED naming the pause) when the session's client, or the automated path
    `task` (a name of `api.integrations.operational_control.scopes.AUTOMATED_PATHS`), is paused; an
    automated path asks it before it acts, so a refused step has changed nothing. Filled in the
    composition root with operationalControl's check, so a lower context (approvedActions running an
    action) asks without importing it."""

    def __call__(self, db: Session, task: str, /) -> None: ...


@dataclass(frozen=True)
class OpenCase:
    """A claim's open denial case as other contexts show it (A/R follow-up): its id, state and owner."""

    id: int
    state: str
    owner_user_id: int | None


class OpenCaseKeys(Protocol):
    """The claim keys of the session client's open (not closed) denial cases, sorted. Filled in the
    composition root with the cases' rule, so money's A/R follow-up asks without importing cases."""

    def __call__(self, db: Session, /) -> list[str]: ...


class OpenCasesOfClaims(Protocol):
    """The open denial case of each of the claim keys that has one (of several, one still being worked,
    else the latest decided one). Filled in the composition root with the cases' rule."""

    def __call__(self, db: Session, claim_keys: Iterable[str], /) -> Mapping[str, OpenCase]: ...


class ConnectorProfileProvisioner(Protocol):
    """Validates a connector profile definition and stores it for the session's client, answering its
    name (INVALID_INPUT / CONFLICT as connectorProfiles.provision). Filled in the composition root, so
    hospitalOnboarding (platform) provisions a new client's default profiles without importing
    connectorProfiles (integrations)."""

    def __call__(self, db: Session, definition: dict[str, Any], user_id: int, /) -> str: ...


class RetentionSetter(Protocol):
    """Sets the session client's evidence retention in years (INVALID_INPUT outside the allowed range).
    Filled in the composition root, so hospitalOnboarding sets a new client's retention without
    importing evidenceControl."""

    def __call__(self, db: Session, years: int, user_id: int, /) -> None: ...


@dataclass(frozen=True)
class CaseCategory:
    """A denial case's id and denial category (None when uncategorised), as evidenceQuality scores it."""

    id: int
    denial_category: str | None


class CaseCategoryOf(Protocol):
    """The session client's case `case_id` with its denial category, or None when there is no such
    case. Filled in the composition root with the cases' reader, so evidenceQuality (evidence) asks
    without importing cases (denials)."""

    def __call__(self, db: Session, case_id: int, /) -> CaseCategory | None: ...


@dataclass(frozen=True)
class InterventionFacts:
    """What the evidence of an intervention measures: its pattern and action keys, the cut-over date
    (its month counts as "after") and the scope of the cell it acts on (None = every value)."""

    id: int
    pattern_key: str
    action_key: str
    start_date: date
    payer_key: str | None
    category: str
    carc: str | None
    service_line: str | None
    facility: str | None


class InterventionOf(Protocol):
    """The session client's intervention `intervention_id`, or None when there is no such intervention.
    Filled in the composition root with the interventions' reader, so evidence (the evidence context)
    asks without importing interventions (intelligence)."""

    def __call__(self, db: Session, intervention_id: int, /) -> InterventionFacts | None: ...


@dataclass(frozen=True)
class OverturnFeatures:
    """What the outcome model reads of a working denial case about to be appealed (plain values, so the
    worklist in denials asks intelligence's model without importing it): the next appeal level is the
    one after the highest already decided on the case, and the case's age runs from ``start`` (its
    remittance date, else its service date, else the day it was opened) to the day of the question."""

    payer: str
    payer_class: str | None
    category: str | None
    carc: str | None
    rarcs: tuple[str, ...]
    amount_at_stake: Decimal
    start: date
    appeal_level: int


@dataclass(frozen=True)
class ModelProbabilities:
    """P(success) of each case asked, in the order asked, by the client's outcome model ``version``."""

    version: int
    probabilities: tuple[float, ...]


class SuccessProbability(Protocol):
    """P(success) of an appeal on each of ``cases`` taken on ``today`` by the session client's latest
    trained outcome model, or None when the client has no trained version or its latest one did not beat
    the payer x category prior on held-out data (then the asker keeps its own estimate). One call for a
    whole batch of cases. Filled in the composition root with outcomeLearning's model, so the worklist
    (denials) asks without importing it (intelligence)."""

    def __call__(self, db: Session, cases: Sequence[OverturnFeatures], today: date, /) -> ModelProbabilities | None: ...


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


class SubmissionBlocker(Protocol):
    """Why the client's claim `claim_id` may not go to submission preparation (empty: no objection), one
    sentence per reason naming the line and code, never PHI. Asked by claims.requestSubmissionPreparation;
    subscribed in the composition root (priorAuthorization's missing authorizations), so claims imports
    none of the namespaces that check a claim before it leaves."""

    def __call__(self, db: Session, claim_id: int, /) -> list[str]: ...


class AuditSink(Protocol):
    """Appends an audit record inside the caller's transaction."""

    def __call__(self, db: Session, entry: AuditRecord, /) -> None: ...


class IdentityVerifier(Protocol):
    """Verifies a bearer token of the external OpenID Connect provider and answers who it vouches for,
    or raises `Unauthenticated` (api.platform.auth.oidc.OidcVerifier answers; it keeps the provider's
    keys between calls, so it lives as long as the services)."""

    def verify(self, token: str, /) -> VerifiedIdentity: ...
