"""Executing an integration run (the `integration.run` job): list the source, fetch each new file
(capped), land it atomically, write its ledger row, and record the run's files, counts and errors.

Transactions are short and never span network I/O: one read to load the run, one read per file for the
pause, one write per file (its ledger row and the run's progress) right after the file landed, one
write to finish. A run killed mid-way leaves landed files with their ledger rows and at most one
hidden temp file (removed by the next run); a file landed whose row was lost is recognised by its
content on the next run and not landed twice.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.core.lifecycle import transition as move
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.landing.zone import file_sha256, fsync_dir
from api.infra.private_files import PRIVATE_FILE, private_dir
from api.integrations.integration_control import sealing, service, transfer
from api.integrations.integration_control.lifecycle import RUN
from api.integrations.integration_control.models import Integration, IntegrationRun, IntegrationTransfer
from api.integrations.integration_control.transfer import Conversion, Decision, Entry
from api.integrations.integration_control.transports import (
    FileError,
    FolderSource,
    SftpSource,
    Source,
    TransferError,
)
from api.integrations.operational_control import service as control
from api.integrations.operational_control.scopes import paused_message

MAX_ERRORS = 200  # as `integrationControl.record` takes
COUNTS = ("listed", "moved", "skipped", "refused", "deferred", "failed", "ignored")
Observer = Callable[[str, str], None]  # (remote name, what happened to it), after its row committed


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int
    max_files: int
    timeout_seconds: float

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(
            settings.integration_run_max_file_bytes,
            settings.integration_run_max_files,
            settings.integration_transfer_timeout_seconds,
        )


@dataclass(frozen=True)
class RunJob:
    """What the network part of a run needs, read in one short transaction (detached from the session)."""

    run_id: int
    integration_id: int
    kind: str
    config: dict[str, Any]
    secrets: dict[str, str] | None = field(repr=False)  # None: sealed under another key
    conversion: Conversion
    source_folder: Path | None  # a folder bank_feed; None: SFTP
    landing: Path  # the client's drop folder for this integration
    known: dict[tuple[str, str], str]


@dataclass
class Progress:
    files: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    errors: list[str] = field(default_factory=list)

    def error(self, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(message[:500])

    def as_counts(self) -> dict[str, int]:
        return {**self.counts, "files": len(self.files), "errors": len(self.errors)}


def landing_folder(row: Integration, data_dir: Path) -> Path:
    """Files go to the client's drop folder, one subfolder per integration (the drop sensor reads it
    recursively)."""
    return service.drop_root(data_dir, row.client_id) / f"integration_{row.id}"


def running_run(db: Session, run_id: int) -> tuple[IntegrationRun, Integration] | str:
    """A run still running and its integration, or why there is nothing to do (gone, already finished)."""
    run = db.get(IntegrationRun, run_id)
    if run is None or run.state != "running":
        return f"run {run_id} is {'gone' if run is None else run.state}"
    row = db.get(Integration, run.integration_id)
    assert row is not None  # the run's foreign key
    return run, row


def opened_secrets(row: Integration, key: bytes) -> dict[str, str] | None:
    """The integration's credentials, or None when they are sealed under another installation's key (the
    run then fails saying so; the sealed text never leaves)."""
    try:
        return service.open_secrets(row, key)
    except sealing.SealError:
        return None


def _load(database: Database, scope: TenantScope, run_id: int, data_dir: Path, key: bytes) -> RunJob | str:
    """The run to execute, or why there is nothing to do (already finished, integration not live)."""
    with database.transaction(write=False) as db:
        set_scope(db, scope)
        found = running_run(db, run_id)
        if isinstance(found, str):
            return found
        run, row = found
        conversion = transfer.conversion_for(row.kind, row.config)
        if conversion is None:
            return f"a {row.kind} integration moves no files itself (its runs are recorded)"
        secrets = opened_secrets(row, key)
        known = {
            (t.source_ref, t.source_fingerprint): t.state
            for t in db.scalars(select(IntegrationTransfer).where(IntegrationTransfer.integration_id == row.id))
        }
        return RunJob(
            run_id=run.id,
            integration_id=row.id,
            kind=row.kind,
            config=dict(row.config),
            secrets=secrets,
            conversion=conversion,
            source_folder=service.local_folder(row, data_dir),
            landing=landing_folder(row, data_dir),
            known=known,
        )


def _open(job: RunJob, limits: Limits) -> Source:
    if job.source_folder is not None:
        return FolderSource(job.source_folder)
    if job.secrets is None:
        raise TransferError("the stored credentials do not open with this installation's key; configure them again")
    path = job.config.get("inbound_path") if job.kind == "clearinghouse" else job.config.get("remote_path")
    if not path or not job.config.get("host") or not job.config.get("host_key_fingerprint"):
        raise TransferError("the configuration lacks the host, remote folder or host key fingerprint")
    return SftpSource.connect(
        host=str(job.config["host"]),
        port=int(job.config.get("port") or 22),
        username=str(job.config.get("username") or ""),
        host_key_fingerprint=str(job.config["host_key_fingerprint"]),
        secrets=job.secrets,
        path=str(path),
        timeout=limits.timeout_seconds,
    )


def stop_reason(database: Database, scope: TenantScope, run_id: int) -> str | None:
    """Why the run must stop before its next file: paused (operationalControl) or no longer running."""
    with database.transaction(write=False) as db:
        set_scope(db, scope)
        run = db.get(IntegrationRun, run_id)
        if run is None or run.state != "running":
            return "gone"
        if control.reasons_paused(db, service.PAUSE_TASK):
            return "paused"
    return None


def _place(tmp: Path, folder: Path, name: str, sha: str) -> str:
    """Move the finished temp file to its name atomically (same folder: os.replace). The same content
    already there (a run killed after landing, before its ledger row) is not landed twice; different
    content under the name lands beside it under a name carrying its hash."""
    for candidate in (name, transfer.alternate_name(name, sha)):
        target = folder / candidate
        if target.exists():
            if target.is_file() and file_sha256(target) == sha:
                tmp.unlink()
                return candidate
            continue
        os.replace(tmp, target)
        fsync_dir(folder)
        return candidate
    raise FileError(f"{transfer.printable(name)}: two other files of that name are in the landing folder; refused")


def _convert(tmp: Path, job: RunJob, shown: str) -> str:
    """Apply the kind's converter in place (the identity writes nothing); the landed bytes' SHA-256."""
    convert = job.conversion.convert
    if convert is transfer.as_is:
        return file_sha256(tmp)
    try:
        data = convert(tmp.read_bytes())
    except InvalidInput as exc:  # the converters' messages name records and totals, never account data
        raise FileError(f"{shown}: not converted: {exc.message}") from None
    except ValueError as exc:
        raise FileError(f"{shown}: conversion failed ({type(exc).__name__})") from None
    with tmp.open("wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    return hashlib.sha256(data).hexdigest()


def _fetch_and_land(source: Source, job: RunJob, entry: Entry, limit: int) -> tuple[str, str, int]:
    """Stream the file into a hidden temp file in the landing folder (fsync), convert, then place it."""
    private_dir(job.landing)
    fd, name = tempfile.mkstemp(prefix=transfer.TEMP_PREFIX, suffix=transfer.TEMP_SUFFIX, dir=job.landing)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), PRIVATE_FILE)
            size = source.read(entry, out.write, limit)
            out.flush()
            os.fsync(out.fileno())
        sha = _convert(tmp, job, entry.name)
        landed = _place(tmp, job.landing, transfer.landed_name(entry.name, job.conversion), sha)
        return landed, sha, size
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def land_bytes(folder: Path, name: str, data: bytes) -> str:
    """Land `data` under `name` in `folder` as a fetched file lands (hidden temp file, fsync, `_place`);
    the name it landed under."""
    private_dir(folder)
    fd, temp = tempfile.mkstemp(prefix=transfer.TEMP_PREFIX, suffix=transfer.TEMP_SUFFIX, dir=folder)
    tmp = Path(temp)
    try:
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), PRIVATE_FILE)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        return _place(tmp, folder, name, hashlib.sha256(data).hexdigest())
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def clear_temp_files(folder: Path) -> None:
    """A run killed mid-file left its hidden temp file: one running run per integration, so it is ours."""
    if folder.is_dir():
        for leftover in folder.glob(f"{transfer.TEMP_PREFIX}*{transfer.TEMP_SUFFIX}"):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _record_file(
    database: Database, scope: TenantScope, job: RunJob, entry: Entry, ledger: dict[str, Any], progress: Progress
) -> None:
    """The file's ledger row and the run's progress, in one short write transaction."""
    with database.transaction() as db:
        set_scope(db, scope)
        if ledger:
            try:
                with db.begin_nested():
                    db.add(
                        IntegrationTransfer(
                            integration_id=job.integration_id,
                            run_id=job.run_id,
                            source_ref=entry.name,
                            source_fingerprint=transfer.fingerprint_of(entry),
                            **ledger,
                        )
                    )
                    db.flush()
            except IntegrityError:
                pass  # another attempt of this run recorded the same version: it is in the ledger either way
        _save_progress(db.get(IntegrationRun, job.run_id), progress)


def _save_progress(run: IntegrationRun | None, progress: Progress) -> None:
    if run is not None:
        run.files = [dict(f) for f in progress.files]
        run.counts = progress.as_counts()
        run.errors = list(progress.errors)


def _one(source: Source, job: RunJob, decision: Decision, limits: Limits, progress: Progress) -> dict[str, Any]:
    """Fetch or refuse one planned file; its ledger values ({} when nothing is recorded for it)."""
    entry = decision.entry
    shown = transfer.printable(entry.name)
    if decision.outcome == "refuse":
        progress.counts["refused"] += 1
        progress.error(f"{shown}: refused: {decision.reason}")
        progress.files.append({"name": shown, "bytes": entry.size, "state": "refused"})
        return {"state": "refused", "bytes": entry.size, "reason": decision.reason[:300]}
    try:
        landed, sha, size = _fetch_and_land(source, job, entry, limits.max_file_bytes)
    except FileError as exc:
        progress.counts["failed"] += 1
        progress.error(str(exc))
        return {}
    state = "landed"
    progress.counts["moved"] += 1
    progress.files.append({"name": entry.name, "landedAs": landed, "bytes": size, "sha256": sha, "state": state})
    return {"state": state, "landed_name": landed, "landed_sha256": sha, "bytes": size}


def _finish(
    database: Database, scope: TenantScope, run_id: int, state: str, progress: Progress, reason: str | None = None
) -> None:
    with database.transaction() as db:
        set_scope(db, scope)
        run = db.get(IntegrationRun, run_id)
        if run is None or run.state != "running":
            return  # cancelled meanwhile (integrationControl.cancel, a suspension): that outcome stands
        run.state = move(RUN, run.state, state)
        _save_progress(run, progress)
        run.finished_at = utcnow()
        run.reason = reason


def _count_plan(plan: transfer.Plan, progress: Progress) -> None:
    progress.counts["listed"] = sum(1 for d in plan.decisions if d.outcome != "ignore")
    named: tuple[tuple[transfer.Outcome, str], ...] = (
        ("skip", "skipped"),
        ("defer", "deferred"),
        ("ignore", "ignored"),
    )
    for outcome, key in named:
        progress.counts[key] = len(plan.of(outcome))


def _transfer(
    database: Database, scope: TenantScope, job: RunJob, source: Source, limits: Limits, observer: Observer | None
) -> tuple[str, str | None]:
    """The per-file loop; the run's final state and reason."""
    progress = Progress()
    plan = transfer.plan(source.entries(), job.known, max_bytes=limits.max_file_bytes, max_files=limits.max_files)
    _count_plan(plan, progress)
    work = plan.of("fetch") + plan.of("refuse")
    work.sort(key=lambda d: (d.entry.mtime, d.entry.name))
    for done, decision in enumerate(work):
        stop = stop_reason(database, scope, job.run_id)
        if stop == "gone":
            return "gone", None
        if stop == "paused":
            reason = (
                f"{paused_message(service.PAUSE_TASK)} — stopped after {done} of {len(work)} file(s) "
                f"({progress.counts['moved']} moved); the next run after resume continues where this one stopped"
            )
            _finish(database, scope, job.run_id, "cancelled", progress, reason[:500])
            return "cancelled", reason
        ledger = _one(source, job, decision, limits, progress)
        _record_file(database, scope, job, decision.entry, ledger, progress)
        if observer is not None:
            observer(decision.entry.name, str(ledger.get("state", "failed")))
    state = "failed" if progress.errors else "succeeded"
    _finish(database, scope, job.run_id, state, progress)
    return state, None


def execute(
    database: Database,
    scope: TenantScope,
    run_id: int,
    *,
    data_dir: Path,
    secrets_key: bytes,
    limits: Limits,
    observer: Observer | None = None,
) -> dict[str, Any]:
    """Execute a started run to its end (succeeded, failed, cancelled by a pause); idempotent: a run no
    longer running is left alone, and what the ledger holds is never fetched again."""
    loaded = _load(database, scope, run_id, data_dir, secrets_key)
    if isinstance(loaded, str):
        return {"runId": run_id, "skipped": loaded}
    if stop_reason(database, scope, run_id) == "paused":
        reason = f"{paused_message(service.PAUSE_TASK)} — nothing was moved; start a run again after resume"
        _finish(database, scope, run_id, "cancelled", Progress(), reason)
        return {"runId": run_id, "state": "cancelled"}
    clear_temp_files(loaded.landing)
    try:
        source = _open(loaded, limits)
    except TransferError as exc:
        failed = Progress()
        failed.error(str(exc))
        _finish(database, scope, run_id, "failed", failed)
        return {"runId": run_id, "state": "failed"}
    try:
        state, _reason = _transfer(database, scope, loaded, source, limits, observer)
    except TransferError as exc:
        fail_run(database, scope, run_id, str(exc))
        state = "failed"
    finally:
        source.close()
    return {"runId": run_id, "state": state}


def fail_run(database: Database, scope: TenantScope, run_id: int, message: str) -> None:
    """Fail a run mid-way (the connection broke, or the job's last attempt crashed): what landed keeps
    its ledger rows (the next run resumes); the run's recorded progress gains the error."""
    with database.transaction() as db:
        set_scope(db, scope)
        run = db.get(IntegrationRun, run_id)
        if run is None or run.state != "running":
            return
        run.state = move(RUN, run.state, "failed")
        run.errors = [*run.errors, message[:500]][:MAX_ERRORS]
        run.counts = {**run.counts, "errors": len(run.errors)}
        run.finished_at = utcnow()
