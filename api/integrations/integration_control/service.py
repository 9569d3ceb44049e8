"""Integrations from draft to live, and their runs. Never commits; never logs; never puts a credential
in a message, an output or the audit log (`audit_view` is what the audit may digest)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets as token_source
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, Forbidden, InvalidInput, PreconditionFailed
from api.core.lifecycle import transition as move
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.infra.db.session import Database
from api.infra.db.tenant_filter import TenantScope, get_scope, set_scope
from api.infra.jobs.queue import enqueue
from api.infra.private_files import private_dir
from api.infra.signing.secret import load_or_create
from api.integrations.integration_control import checks, sealing, transfer
from api.integrations.integration_control.lifecycle import INTEGRATION, RUN, TRANSITION_MOVES
from api.integrations.integration_control.models import Integration, IntegrationEvent, IntegrationRun
from api.integrations.operational_control import service as control
from api.platform.organizations.service import require_independent

SECRET_FIELDS = ("password", "private_key", "client_secret")
PAUSE_TASK = "integration_run"  # operationalControl: a run is a transfer with stored credentials
LIVE_STATES = ("active", "suspended")
RUN_JOB_KIND = "integration.run"  # executed by `engine.execute` (job_handlers.py)
RUN_JOB_ATTEMPTS = 3  # a retried attempt resumes from the ledger


def secrets_key(settings: Settings) -> bytes:
    """The AES-GCM key for integration secrets, kept under DATA_DIR/keys (created on first use)."""
    return load_or_create(settings.resolved_integration_secrets_key_path)


def drop_root(data_dir: Path, client_id: int) -> Path:
    """The drop sensor's folder for a client (`pipelines/warehouse/layout.py`: drop/client_<id>/)."""
    return data_dir / "drop" / f"client_{client_id}"


def feed_root(data_dir: Path, client_id: int) -> Path:
    return data_dir / "feeds" / f"client_{client_id}"


def local_folder(row: Integration, data_dir: Path) -> Path | None:
    """The local folder of an sftp_drop or folder bank_feed integration (None for remote kinds)."""
    if row.kind == "sftp_drop":
        subfolder: str = row.config.get("subfolder", "")
        return drop_root(data_dir, row.client_id) / subfolder
    if row.kind == "bank_feed" and row.config.get("transport") == "folder":
        folder: str = row.config.get("folder", "")
        return feed_root(data_dir, row.client_id) / folder
    return None


def split(config: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A configuration model -> (non-secret settings, secrets by name)."""
    plain = config.model_dump(mode="json", exclude=set(SECRET_FIELDS))
    secret_values = {
        name: value.get_secret_value()
        for name in SECRET_FIELDS
        if isinstance(value := getattr(config, name, None), SecretStr)
    }
    return plain, secret_values


def _digest(plain: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(plain, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _aad(client_id: int, key: str, version: int) -> str:
    return f"integration/{client_id}/{key}/{version}"


def _store_config(row: Integration, client_id: int, plain: dict[str, Any], found: dict[str, str], key: bytes) -> None:
    row.config = plain
    row.config_digest = _digest(plain)
    row.secret_names = sorted(found)
    row.secrets_sealed = sealing.seal(key, found, _aad(client_id, row.key, row.config_version)) if found else None
    row.secrets_fingerprint = sealing.fingerprint(key, found) if found else None
    pem = found.get("private_key")
    row.public_key_fingerprint = checks.public_fingerprint(pem) if pem else None
    row.validation = []
    row.validated_version = None
    row.validated_at = None
    row.approved_by = None
    row.approved_at = None


def _event(db: Session, row: Integration, before: str | None, reason: str, user_id: int) -> None:
    db.add(
        IntegrationEvent(
            integration_id=row.id,
            from_state=before,
            to_state=row.state,
            config_version=row.config_version,
            reason=reason,
            actor_user_id=user_id,
        )
    )


def _move(db: Session, row: Integration, target: str, reason: str, user_id: int) -> None:
    before = row.state
    row.state = move(INTEGRATION, before, target)
    row.updated_at = utcnow()
    _event(db, row, before, reason, user_id)


def get(db: Session, integration_id: int) -> Integration:
    return get_by_id(db, Integration, integration_id, "Integration")


def by_key(db: Session, key: str) -> Integration | None:
    return db.scalar(select(Integration).where(Integration.key == key))


def create(
    db: Session, *, client_id: int, key: str | None, name: str, config: Any, user_id: int, secrets_key: bytes
) -> Integration:
    """A new draft integration; a key already used in this client is CONFLICT (use upsert)."""
    key = key or f"int-{token_source.token_hex(6)}"
    if by_key(db, key) is not None:
        raise Conflict(f"An integration with key '{key}' exists in this client; use upsert to change it")
    plain, found = split(config)
    row = Integration(key=key, name=name, kind=config.kind, state="draft", config_version=1)
    row.created_by = row.config_by = user_id
    _store_config(row, client_id, plain, found, secrets_key)
    db.add(row)
    db.flush()
    _event(db, row, None, "created", user_id)
    db.flush()
    return row


def _same(row: Integration, plain: dict[str, Any], found: dict[str, str], key: bytes) -> bool:
    fingerprint = sealing.fingerprint(key, found) if found else None
    return row.config_digest == _digest(plain) and row.secrets_fingerprint == fingerprint


def upsert(
    db: Session, *, client_id: int, key: str, name: str, config: Any, user_id: int, secrets_key: bytes
) -> tuple[Integration, bool]:
    """Create under `key`, or: same configuration -> the row unchanged (False); a changed one -> a new
    config version, back to draft, the approval void (True)."""
    row = by_key(db, key)
    if row is None:
        return create(
            db, client_id=client_id, key=key, name=name, config=config, user_id=user_id, secrets_key=secrets_key
        ), True
    if row.kind != config.kind:
        raise Conflict(f"Integration '{key}' is a {row.kind} integration; a {config.kind} one needs another key")
    plain, found = split(config)
    if _same(row, plain, found, secrets_key):
        if row.name == name:
            return row, False
        row.name = name
        row.updated_at = utcnow()
        return row, True
    if row.state == "retired":
        raise PreconditionFailed(f"Integration '{key}' is retired; configure a new one under another key")
    row.config_version += 1
    row.config_by = user_id
    row.name = name
    _store_config(row, client_id, plain, found, secrets_key)
    if row.state == "draft":
        row.updated_at = utcnow()
        _event(db, row, "draft", f"configuration version {row.config_version}", user_id)
    else:
        _move(db, row, "draft", f"configuration version {row.config_version}: approval void", user_id)
    db.flush()
    return row, True


def open_secrets(row: Integration, secrets_key: bytes) -> dict[str, str]:
    """The row's credentials in clear, for the exchange code and `validate` only (never answered)."""
    if not row.secrets_sealed:
        return {}
    return sealing.open_sealed(secrets_key, row.secrets_sealed, _aad(row.client_id, row.key, row.config_version))


def validate(db: Session, integration_id: int, *, user_id: int, secrets_key: bytes) -> list[checks.Check]:
    """Run the offline checks on the current configuration: all pass -> validated; a failure -> draft."""
    row = get(db, integration_id)
    if row.state not in ("draft", "validated"):
        raise PreconditionFailed(
            f"The integration is '{row.state}'; only a draft or validated one is validated (change it with upsert)"
        )
    now = utcnow()
    try:
        found = open_secrets(row, secrets_key)
    except sealing.SealError:
        raise PreconditionFailed("The stored credentials do not open with this installation's key") from None
    result = checks.evaluate(row.kind, row.config, found, now)
    row.validation = [{"name": c.name, "status": c.status, "message": c.message} for c in result]
    row.validated_version = row.config_version
    row.validated_at = now
    if checks.passed(result):
        _move(db, row, "validated", "offline checks passed", user_id)
    elif row.state == "validated":
        _move(db, row, "draft", "offline checks failed", user_id)
    db.flush()
    return result


def approve(db: Session, integration_id: int, *, user_id: int, reason: str, invited_window_days: int) -> Integration:
    """Approve a validated integration: never by the member who created or last configured it, nor by
    someone either of them invited within `invited_window_days`."""
    row = get(db, integration_id)
    if user_id in (row.created_by, row.config_by):
        raise Forbidden(
            "Separation of duties: the member who created or last configured an integration cannot approve it"
        )
    require_independent(
        db,
        user_id,
        [row.created_by, row.config_by],
        window_days=invited_window_days,
        requester="the integration's creator or last configurer",
    )
    if row.state != "validated" or row.validated_version != row.config_version:
        raise PreconditionFailed(f"The integration is '{row.state}'; only a validated one can be approved")
    row.approved_by = user_id
    row.approved_at = utcnow()
    _move(db, row, "approved", reason, user_id)
    db.flush()
    return row


def _ensure_folder(row: Integration, data_dir: Path) -> None:
    folder = local_folder(row, data_dir)
    if folder is None:
        return
    root = drop_root(data_dir, row.client_id) if row.kind == "sftp_drop" else feed_root(data_dir, row.client_id)
    private_dir(folder)
    if not folder.resolve().is_relative_to(root.resolve()):
        raise PreconditionFailed("The integration's folder resolves outside its allowed root")


def activate(db: Session, integration_id: int, *, user_id: int, data_dir: Path) -> Integration:
    """approved -> active; an sftp_drop (or folder bank_feed) gets its folder created."""
    row = get(db, integration_id)
    if row.state != "approved":
        raise PreconditionFailed(f"The integration is '{row.state}'; only an approved one can be activated")
    _ensure_folder(row, data_dir)
    _move(db, row, "active", "activated", user_id)
    row.activated_at = utcnow()
    db.flush()
    return row


def _cancel_running(db: Session, row: Integration, reason: str) -> None:
    for run in db.scalars(
        select(IntegrationRun).where(IntegrationRun.integration_id == row.id, IntegrationRun.state == "running")
    ):
        run.state = move(RUN, run.state, "cancelled")
        run.finished_at = utcnow()
        run.reason = reason


def transition(
    db: Session, integration_id: int, target: str, *, reason: str, user_id: int, data_dir: Path
) -> Integration:
    """Suspend, resume or retire; the other moves have their own procedure (validate, approve,
    activate, upsert). Suspending or retiring cancels a running run."""
    row = get(db, integration_id)
    if (row.state, target) not in TRANSITION_MOVES:
        if target in ("validated", "approved", "draft") or (target == "active" and row.state == "approved"):
            raise InvalidInput(f"Moving to '{target}' is done by validate, approve, activate or upsert")
        move(INTEGRATION, row.state, target)  # raises PRECONDITION_FAILED naming the allowed moves
        raise PreconditionFailed(f"The integration is '{row.state}'; move it with the procedure for '{target}'")
    if target == "active":
        _ensure_folder(row, data_dir)
    else:
        _cancel_running(db, row, f"integration {target}: {reason}")
    _move(db, row, target, reason, user_id)
    db.flush()
    return row


def get_run(db: Session, run_id: int) -> IntegrationRun:
    return get_by_id(db, IntegrationRun, run_id, "Integration run")


def start(db: Session, integration_id: int, *, user_id: int) -> IntegrationRun:
    """Start a run of an active integration; one running run at a time. Refused while the client or
    `integration_run` is paused (operationalControl); recording or cancelling a started run is not.
    A kind with a transport gets its `integration.run` job queued in this transaction (the engine moves
    the files); the others are recorded by their caller (`record`)."""
    row = get(db, integration_id)
    control.require_not_paused(db, PAUSE_TASK)
    if row.state != "active":
        raise PreconditionFailed(f"The integration is '{row.state}'; runs start only when it is active")
    running = db.scalar(
        select(IntegrationRun.id).where(IntegrationRun.integration_id == row.id, IntegrationRun.state == "running")
    )
    if running is not None:
        raise Conflict(f"Run {running} of this integration is still running; record or cancel it first")
    run = IntegrationRun(integration_id=row.id, config_version=row.config_version, state="running", started_by=user_id)
    db.add(run)
    db.flush()
    if row.kind == "ehr" or transfer.conversion_for(row.kind, row.config) is not None:
        # A kind with a transport (clearinghouse and bank_feed files, ehr FHIR pulls) is executed by the job
        # worker after this commits; an sftp_drop is filled from outside and its runs recorded with `record`.
        scope = get_scope(db)
        assert scope is not None
        payload = {"runId": run.id, "clientId": row.client_id}
        enqueue(db, RUN_JOB_KIND, payload, organization_id=scope.organization_id, max_attempts=RUN_JOB_ATTEMPTS)
    return run


def run_kind(database: Database, scope: TenantScope, run_id: int) -> str | None:
    """The kind of the integration a run belongs to (None: the run is gone), read in its own transaction."""
    with database.transaction(write=False) as db:
        set_scope(db, scope)
        return db.scalar(
            select(Integration.kind)
            .join(IntegrationRun, IntegrationRun.integration_id == Integration.id)
            .where(IntegrationRun.id == run_id)
        )


def cancel(db: Session, run_id: int, *, reason: str) -> IntegrationRun:
    run = get_run(db, run_id)
    run.state = move(RUN, run.state, "cancelled")
    run.finished_at = utcnow()
    run.reason = reason
    db.flush()
    return run


def record(
    db: Session, run_id: int, *, outcome: str, files: list[dict[str, Any]], counts: dict[str, int], errors: list[str]
) -> IntegrationRun:
    """Record a running run's files, counts and errors and finish it (succeeded or failed)."""
    run = get_run(db, run_id)
    run.state = move(RUN, run.state, outcome)
    run.files = files
    run.counts = {**counts, "files": len(files), "errors": len(errors)}
    run.errors = errors
    run.finished_at = utcnow()
    db.flush()
    return run


def last_run(db: Session, integration_id: int, *, state: str | None = None) -> IntegrationRun | None:
    stmt = select(IntegrationRun).where(IntegrationRun.integration_id == integration_id)
    if state is not None:
        stmt = stmt.where(IntegrationRun.state == state)
    return db.scalar(stmt.order_by(IntegrationRun.id.desc()).limit(1))


def list_statement(kind: str | None, state: str | None) -> Select[Any]:
    return where_given(select(Integration), (Integration.kind, kind), (Integration.state, state))


def view(db: Session, row: Integration) -> dict[str, Any]:
    """The wire view of an integration: settings and which credentials are present, never their values."""
    names = set(row.secret_names)
    folder = None
    if row.kind == "sftp_drop":
        folder = "/".join(p for p in ("drop", f"client_{row.client_id}", row.config.get("subfolder", "")) if p)
    return {
        **{c: getattr(row, c) for c in _COLUMNS},
        "has_password": "password" in names,
        "has_private_key": "private_key" in names,
        "has_client_secret": "client_secret" in names,
        "drop_folder": folder,
        "last_run": last_run(db, row.id),
    }


_COLUMNS = (
    "id",
    "key",
    "name",
    "kind",
    "state",
    "config",
    "config_version",
    "public_key_fingerprint",
    "created_by",
    "config_by",
    "validation",
    "validated_at",
    "approved_by",
    "approved_at",
    "activated_at",
    "created_at",
    "updated_at",
)


def audit_view(row: Integration) -> dict[str, Any]:
    """What the audit log may digest: state and config version and digest, never the credentials."""
    return {
        "key": row.key,
        "kind": row.kind,
        "state": row.state,
        "config_version": row.config_version,
        "config_digest": row.config_digest,
    }


def readiness(
    db: Session, integration_id: int | None, *, data_dir: Path
) -> list[tuple[Integration, list[checks.Check], dict[str, Any]]]:
    """Per integration of the client: what works end to end (config valid, approved, active, last run,
    the local folder for drop/folder kinds; reachability is not checked offline)."""
    rows = (
        [get(db, integration_id)]
        if integration_id is not None
        else list(db.scalars(select(Integration).order_by(Integration.id)))
    )
    return [(row, *_readiness_of(db, row, data_dir)) for row in rows]


def _readiness_of(db: Session, row: Integration, data_dir: Path) -> tuple[list[checks.Check], dict[str, Any]]:
    valid = row.validated_version == row.config_version and bool(row.validation)
    valid = valid and all(c["status"] != "failed" for c in row.validation)
    found = [
        checks.Check(
            "config_valid",
            "passed" if valid else "failed",
            "offline checks passed on the current version" if valid else "validate the current configuration",
        ),
        checks.Check(
            "approved",
            "passed" if row.approved_by else "failed",
            "approved by another member" if row.approved_by else "not approved",
        ),
        checks.Check("active", "passed" if row.state == "active" else "failed", f"state '{row.state}'"),
    ]
    last = last_run(db, row.id)
    finished = db.scalar(
        select(IntegrationRun)
        .where(IntegrationRun.integration_id == row.id, IntegrationRun.state.in_(("succeeded", "failed")))
        .order_by(IntegrationRun.id.desc())
        .limit(1)
    )
    success = last_run(db, row.id, state="succeeded")
    if finished is None:
        found.append(checks.Check("last_run", "failed", "no run recorded yet"))
    else:
        ok = finished.state == "succeeded"
        when = finished.finished_at.isoformat() if finished.finished_at else "?"
        found.append(checks.Check("last_run", "passed" if ok else "failed", f"{finished.state} at {when}"))
    found.append(_folder_check(row, data_dir))
    runs = {
        "last_run_state": last.state if last else None,
        "last_run_at": last.created_at if last else None,
        "last_success_at": success.finished_at if success else None,
    }
    return found, runs


def _folder_check(row: Integration, data_dir: Path) -> checks.Check:
    folder = local_folder(row, data_dir)
    if folder is None:
        return checks.Check("reachability", "not_checked", "not checked offline (needs the network)")
    if not folder.is_dir():
        return checks.Check("folder", "failed", "the folder does not exist (activate creates it)")
    if not os.access(folder, os.W_OK | os.X_OK):
        return checks.Check("folder", "failed", "the folder is not writable by the service")
    return checks.Check("folder", "passed", "exists and is writable")


def overall_ready(items: list[tuple[Integration, list[checks.Check], dict[str, Any]]]) -> bool:
    live = [found for row, found, _ in items if row.state != "retired"]
    return bool(live) and all(checks.passed(found) for found in live)
