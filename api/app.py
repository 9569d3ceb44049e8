"""The composition root: builds the shared services, wires the RPC layer to the platform's
resolvers and audit sink, and mounts the four public entry points."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy.orm import Session
from starlette.routing import Route

from api.core.hooks import Keyed
from api.core.services import BatchPostedListener, CaseOpenedListener, OutcomeRecordedListener, PayloadChecker
from api.core.settings import Settings, get_settings
from api.core.version import VERSION
from api.denials.appeal_assembly.service import packet_payload, submitted_by_action
from api.denials.approvals.service import void_for_draft
from api.denials.approved_actions.payloads import KINDS as ACTION_KINDS
from api.denials.cases import service as cases
from api.denials.cases.intake import open_cases_for_batch
from api.denials.claims import intake as claims_intake
from api.denials.deadlines.service import schedule_cases
from api.denials.drafts.service import payload_checker as draft_payload_checker
from api.denials.human_attention import service as human_attention
from api.denials.notifications.service import notify_assigned
from api.denials.prior_authorization.service import submission_blockers as missing_prior_authorizations
from api.evidence.evidence_control import service as evidence_control
from api.infra.access_log import AccessLogMiddleware
from api.infra.db.session import Database
from api.infra.discovery.namespaces import modules_named
from api.infra.jobs.worker import Worker
from api.infra.outbox.service import Outbox
from api.infra.private_files import secure_data_dir
from api.infra.rate_limit.bucket import Budget
from api.infra.rate_limit.limiter import RateLimiter
from api.infra.security_headers import SecurityHeadersMiddleware
from api.infra.services.container import Services
from api.infra.signing.secret import digest_key as load_digest_key
from api.infra.signing.service import SigningKeys, SigningKeysUnavailable
from api.infra.snapshot.reader import MartReader
from api.integrations.connector_profiles import service as connector_profiles
from api.integrations.operational_control import service as operational_control
from api.intelligence.interventions import service as interventions
from api.intelligence.outcome_learning import service as outcome_learning
from api.money.entity_resolution import registration as entity_registration
from api.platform.activation_governance.service import activation_blockers
from api.platform.audit.anchor import AuditAnchor
from api.platform.auth.oidc import OidcVerifier
from api.platform.auth.resolve import principal_resolver
from api.platform.auth.secrets import HashCost, configure_password_hashing
from api.platform.organizations.membership import memberships_of, resolve_tenant
from api.platform.organizations.service import add_member
from api.rpc.http import RpcEndpoint
from api.rpc.procedure import Registry, rpc

log = logging.getLogger("api")


def build_services(settings: Settings | None = None) -> Services:
    settings = settings or get_settings()
    # Before anything writes under it: the landing zone, the SQLite database and the keys hold PHI and secrets.
    secure_data_dir(settings.resolved_data_dir)
    configure_password_hashing(
        HashCost(
            settings.password_hash_time_cost, settings.password_hash_memory_kib, settings.password_hash_parallelism
        )
    )
    verifier = None
    if settings.oidc_issuer and settings.oidc_audience:
        verifier = OidcVerifier(
            settings.oidc_issuer,
            settings.oidc_audience,
            settings.oidc_jwks_url,
            email_claim=settings.oidc_email_claim,
            leeway=settings.oidc_leeway_seconds,
            min_refetch_seconds=settings.oidc_jwks_min_refetch_seconds,
        )
    database = Database(settings.resolved_database_url)
    signing_keys = SigningKeys.from_settings(settings)
    # Kept under DATA_DIR/keys (0600), never in the database: keys the audit digests and throttle keys.
    digest_key = load_digest_key(settings)
    anchor = AuditAnchor.of(settings, digest_key, signing_keys)
    worker = None
    if settings.job_worker_enabled:
        # Jobs whose work is audited (the evidence purge) write to the same chain as the procedures.
        # ... and the worklist's rescoring asks the outcome model like the procedures do.
        worker = Worker(
            database,
            poll_seconds=settings.job_poll_seconds,
            audit=anchor.record,
            settings=settings,
            success_probability=outcome_learning.success_probability,
        )
    services = Services(
        settings=settings,
        database=database,
        oidc_verifier=verifier,
        signing_keys=signing_keys,
        job_worker=worker,
        marts=MartReader(settings.warehouse_dir),
        outbox=Outbox(settings, database),
        rate_limiter=RateLimiter(
            Budget(settings.rpc_rate_limit_per_second, settings.rpc_rate_limit_burst),
            max_keys=settings.rpc_rate_limit_max_keys,
        ),
        resolve_tenant=resolve_tenant,
        memberships_of=memberships_of,
        audit=anchor.record,
        add_member=add_member,
        require_not_paused=operational_control.require_not_paused,  # a sandbox execution asks the pause
        open_case_claim_keys=cases.open_case_claim_keys,  # A/R follow-up shows each claim's open case
        open_cases_of_claims=cases.open_case_facts,
        # a provisioned hospital's default connector profiles and evidence retention
        provision_connector_profile=connector_profiles.provision_named,
        set_evidence_retention=evidence_control.set_retention_years,
        case_category_of=cases.case_category,  # evidenceQuality scores against the case's denial category
        intervention_of=interventions.intervention_facts,  # evidence measures an intervention's scope
        # the worklist ranks by the outcome model where the client's latest version beat the prior
        success_probability=outcome_learning.success_probability,
        digest_key=digest_key,
        payload_checkers=Keyed(ACTION_KINDS),  # a checker for a kind that is not an action kind is refused
    )
    # Bound after construction: resolving OIDC identities needs the services themselves.
    services.resolve_principal = principal_resolver(services)
    services.batch_posted.subscribe(claims_intake.listener(digest_key))  # 837 -> claims, 835 -> adjudications
    # ... and each claim's patient (keyed digests and name filters only) and payer are scored for
    # entityResolution by the `entityResolution.register` job it queues (after the confirm commits)
    services.batch_posted.subscribe(entity_registration.request_registration)
    services.batch_posted.subscribe(_case_intake(services))  # a confirmed denial or recoupment opens a case
    # ... and its payers' remittance history moved: their cases' P(overturn) priors (humanAttention)
    services.batch_posted.subscribe(human_attention.rescore_after_posting)
    services.case_opened.subscribe(schedule_cases)  # a new case gets its appeal and timely-filing deadlines
    services.case_opened.subscribe(_score_opened(services))  # ... then its place in the worklist
    services.case_assigned.subscribe(notify_assigned)  # the new owner of a case is told in the app
    services.outcome_recorded.subscribe(_rescore_after_outcome(services))  # the worklist's probabilities
    services.draft_discarded.subscribe(void_for_draft)  # a discarded draft's approval is void
    services.action_executed.subscribe(submitted_by_action)  # an executed submit_appeal_packet submits its packet
    for kind, checker in _PAYLOAD_CHECKERS.items():
        services.payload_checkers.subscribe(kind, checker)
    # Automation switches on (operationalControl.resume, an auto-applying autonomy policy) only once every
    # activation gate of the client has passed.
    services.resume_blockers.subscribe(_gates_not_passed)
    # A claim goes to submission preparation only with the prior authorizations its lines need.
    services.submission_blockers.subscribe(missing_prior_authorizations)
    return services


def _gates_not_passed(db: Session) -> list[str]:
    """Why automation may not switch on yet: each activation gate of the client not passed."""
    return [
        f"activation gate '{gate}' has not passed (activationGovernance.recordGate)" for gate in activation_blockers(db)
    ]


# Who can tell what an approved action's payload is now (digest, case, authors), per action kind
# ("draft:<id>" payloads are drafts of the kinds listed); a submit_appeal_packet payload is a packet id,
# its digest the packet's content hash recomputed now (a changed letter draft or a purged document
# changes it).
_PAYLOAD_CHECKERS: dict[str, PayloadChecker] = {
    "send_corrected_claim": draft_payload_checker(("corrected_claim",)),
    "portal_message": draft_payload_checker(("appeal_letter", "note")),
    "submit_appeal_packet": packet_payload,
}


def _case_intake(services: Services) -> BatchPostedListener:
    """Cases opened from a confirmed batch, then told to what follows an opening (deadlines)."""

    def listener(db: Session, batch_id: int) -> None:
        opened = open_cases_for_batch(db, batch_id)
        if opened:
            services.case_opened.emit(db, opened)

    return listener


def _score_opened(services: Services) -> CaseOpenedListener:
    """New cases ranked by the worklist, asking the outcome model through the services' port."""

    def listener(db: Session, case_ids: Sequence[int]) -> None:
        human_attention.score_opened(db, case_ids, ask=services.success_probability)

    return listener


def _rescore_after_outcome(services: Services) -> OutcomeRecordedListener:
    """A decision moved the worklist's probabilities: rescore, asking the outcome model through the port."""

    def listener(db: Session, case_id: int) -> None:
        human_attention.rescore_after_outcome(db, case_id, ask=services.success_probability)

    return listener


def load_procedures() -> Registry:
    """Import every domain's `procedures` (declaring is registering) and `job_handlers`."""
    modules_named("procedures")
    modules_named("job_handlers")
    return rpc


def install_entry_points(app: FastAPI, services: Services) -> None:
    """Mount the non-RPC entry points each domain exposes in `routes.install` (health, JWKS, webhooks)."""
    for module in modules_named("routes"):
        module.install(app, services)


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    owns_services = services is None
    services = services or build_services(settings)
    registry = load_procedures()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if services.signing_keys is not None:
            try:
                services.signing_keys.ensure()  # generates the embedded default key set on first start
            except SigningKeysUnavailable as exc:
                log.error("SMART signing keys unavailable: %s", exc)  # the JWKS endpoint answers 503
        if services.job_worker is not None:
            services.job_worker.start()
        try:
            yield
        finally:
            if services.job_worker is not None:
                services.job_worker.stop()
            if owns_services:
                services.close()

    app = FastAPI(
        title="Denial-management platform",
        version=VERSION,
        docs_url="/docs" if services.settings.api_docs_enabled else None,
        redoc_url=None,
        openapi_url="/openapi.json" if services.settings.api_docs_enabled else None,
        telemetry={"tracing": False, "metrics": False, "logs": False},
        lifespan=lifespan,
    )
    app.state.services = services
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(AccessLogMiddleware)
    app.router.routes.append(
        Route(
            "/api/rpc/{path:path}",
            RpcEndpoint(registry, services).handle,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
        )
    )
    install_entry_points(app, services)
    return app
