"""The run of an `ehr` integration: pull Coverage and Claim from the EHR's FHIR R4 server (`fhir_client.pull`,
SMART Backend Services with the sealed private key) and land the resources this integration has not seen
before, as NDJSON, in `DATA_DIR/feeds/client_<id>/ehr/integration_<id>/`.

What moved is the ledger (`integration_transfers`): one row per resource version (`<type>/<id>` and the
SHA-256 of its canonical JSON), written in one short transaction right after the files landed. A later run
lands only new or changed resources; a run killed after landing and before its ledger commit is repeated
without a duplicate file, because a file is named by its content (`<type>-<sha256[:12]>.ndjson`) and lands
as a fetched file does (`engine.land_bytes`: the same content is never written twice). A pull cut short by its cap records where each type stopped
(`integration_runs.resume`); the next run goes on from there. The operationalControl pause is checked
before the pull and again before anything lands. No network I/O happens inside a transaction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from api.core.errors import DomainError
from api.core.lifecycle import transition as move
from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.integrations.integration_control import engine, fhir_client, service
from api.integrations.integration_control.lifecycle import RUN
from api.integrations.integration_control.models import IntegrationRun, IntegrationTransfer
from api.integrations.integration_control.schemas import EhrConfig
from api.integrations.operational_control.scopes import paused_message

Known = set[tuple[str, str]]


@dataclass(frozen=True)
class NewResource:
    ref: str  # "<type>/<id>"
    fingerprint: str  # SHA-256 of the canonical JSON: a changed resource is a new version
    line: bytes = field(repr=False)  # the canonical JSON: the resource's NDJSON line, the print's input
    resource: dict[str, Any] = field(repr=False)


def canonical(resource: Mapping[str, Any]) -> bytes:
    """A resource's canonical JSON (sorted keys, no spaces; FHIR JSON does not depend on key order)."""
    return json.dumps(resource, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def fingerprint(resource: Mapping[str, Any]) -> str:
    """The SHA-256 of a resource's canonical JSON: equal content, equal print."""
    return hashlib.sha256(canonical(resource)).hexdigest()


def new_resources(resources: Mapping[str, Sequence[Mapping[str, Any]]], known: Known) -> dict[str, list[NewResource]]:
    """Per resource type, the pulled resources whose version is not in the ledger (pure)."""
    found: dict[str, list[NewResource]] = {}
    for resource_type, items in resources.items():
        seen: set[tuple[str, str]] = set()
        for item in items:
            line = canonical(item)
            key = (f"{resource_type}/{item.get('id', '')}", hashlib.sha256(line).hexdigest())
            if key in known or key in seen:
                continue
            seen.add(key)
            found.setdefault(resource_type, []).append(NewResource(key[0], key[1], line, dict(item)))
    return found


def ndjson(items: Sequence[NewResource]) -> bytes:
    """One resource per line, in the server's order (FHIR Bulk Data's NDJSON form)."""
    return b"".join(item.line + b"\n" for item in items)


def landing_folder(data_dir: Path, client_id: int, integration_id: int) -> Path:
    return service.feed_root(data_dir, client_id) / "ehr" / f"integration_{integration_id}"


@dataclass(frozen=True)
class EhrJob:
    run_id: int
    integration_id: int
    config: EhrConfig
    private_key: str | None = field(repr=False)  # None: sealed under another key
    known: Known
    since: dict[str, str] | None
    landing: Path


def _load(database: Database, scope: TenantScope, run_id: int, data_dir: Path, key: bytes) -> EhrJob | str:
    with database.transaction(write=False) as db:
        set_scope(db, scope)
        found = engine.running_run(db, run_id)
        if isinstance(found, str):
            return found
        run, row = found
        secrets = engine.opened_secrets(row, key)
        private_key = None if secrets is None else secrets.get("private_key", "")
        known = {
            (t.source_ref, t.source_fingerprint)
            for t in db.scalars(select(IntegrationTransfer).where(IntegrationTransfer.integration_id == row.id))
        }
        previous = db.scalar(
            select(IntegrationRun)
            .where(IntegrationRun.integration_id == row.id, IntegrationRun.state == "succeeded")
            .order_by(IntegrationRun.id.desc())
            .limit(1)
        )
        return EhrJob(
            run_id=run.id,
            integration_id=row.id,
            config=EhrConfig.model_validate(row.config),
            private_key=private_key,
            known=known,
            since=dict(previous.resume) if previous is not None and previous.resume else None,
            landing=landing_folder(data_dir, row.client_id, row.id),
        )


def _finish(
    database: Database,
    scope: TenantScope,
    job_run: int,
    state: str,
    *,
    files: list[dict[str, Any]] | None = None,
    counts: dict[str, int] | None = None,
    errors: list[str] | None = None,
    reason: str | None = None,
    ledger: list[IntegrationTransfer] | None = None,
    resume: dict[str, str] | None = None,
) -> None:
    """The run's outcome, with the ledger rows of what landed, in one short write transaction."""
    with database.transaction() as db:
        set_scope(db, scope)
        run = db.get(IntegrationRun, job_run)
        if run is None or run.state != "running":
            return  # cancelled meanwhile: that outcome stands (what landed is on disk, found again next run)
        for row in ledger or []:
            db.add(row)
        run.state = move(RUN, run.state, state)
        run.files = files or []
        errors = errors or []
        run.counts = {**(counts or {}), "files": len(run.files), "errors": len(errors)}
        run.errors = errors
        run.reason = reason
        run.resume = resume or None
        run.finished_at = utcnow()


def execute(
    database: Database,
    scope: TenantScope,
    run_id: int,
    *,
    data_dir: Path,
    secrets_key: bytes,
    limits: fhir_client.Limits,
    ca_bundle: Path | None,
) -> dict[str, Any]:
    """Execute a started ehr run to its end (succeeded, failed, or cancelled by a pause)."""
    loaded = _load(database, scope, run_id, data_dir, secrets_key)
    if isinstance(loaded, str):
        return {"runId": run_id, "skipped": loaded}
    if engine.stop_reason(database, scope, run_id) == "paused":
        reason = f"{paused_message(service.PAUSE_TASK)} — nothing was pulled; start a run again after resume"
        _finish(database, scope, run_id, "cancelled", reason=reason)
        return {"runId": run_id, "state": "cancelled"}
    if not loaded.private_key:
        problem = "the stored private key does not open with this installation's key, or none is configured"
        _finish(database, scope, run_id, "failed", errors=[problem])
        return {"runId": run_id, "state": "failed"}
    try:
        pulled = fhir_client.pull(
            loaded.config, loaded.private_key, since_cursor=loaded.since, limits=limits, ca_bundle=ca_bundle
        )
    except DomainError as exc:  # refused, unreachable, a bad key: the client's messages carry no data
        _finish(database, scope, run_id, "failed", errors=[exc.message[:500]])
        return {"runId": run_id, "state": "failed"}
    if engine.stop_reason(database, scope, run_id) == "paused":
        reason = f"{paused_message(service.PAUSE_TASK)} — pulled but not landed; the next run after resume pulls again"
        _finish(database, scope, run_id, "cancelled", reason=reason)
        return {"runId": run_id, "state": "cancelled"}
    engine.clear_temp_files(loaded.landing)
    return _land_and_record(database, scope, loaded, pulled)


def _land_and_record(
    database: Database, scope: TenantScope, job: EhrJob, pulled: fhir_client.PullResult
) -> dict[str, Any]:
    fresh = new_resources(pulled.resources, job.known)
    files: list[dict[str, Any]] = []
    ledger: list[IntegrationTransfer] = []
    for resource_type, items in fresh.items():
        data = ndjson(items)
        sha = hashlib.sha256(data).hexdigest()
        name = engine.land_bytes(job.landing, f"{resource_type}-{sha[:12]}.ndjson", data)
        files.append({"name": name, "bytes": len(data), "sha256": sha, "resources": len(items), "state": "landed"})
        ledger.extend(
            IntegrationTransfer(
                integration_id=job.integration_id,
                run_id=job.run_id,
                source_ref=item.ref,
                source_fingerprint=item.fingerprint,
                state="landed",
                landed_name=name,
                landed_sha256=sha,
                bytes=len(item.line),
            )
            for item in items
        )
    listed = sum(len(items) for items in pulled.resources.values())
    moved = len(ledger)
    counts = {"listed": listed, "moved": moved, "skipped": listed - moved, "unfinished_types": len(pulled.resume)}
    _finish(database, scope, job.run_id, "succeeded", files=files, counts=counts, ledger=ledger, resume=pulled.resume)
    return {"runId": job.run_id, "state": "succeeded", "moved": moved}
