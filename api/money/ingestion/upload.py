"""Uploading a file: store it once in the landing zone, detect its format and parse it into a batch
(or only store it, for the job queue to parse, when it is big). Never commits (see `batches`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.infra.landing.zone import LandingZone, StoredFile, content_sha256
from api.integrations.connector_profiles.service import resolve_profile
from api.money.ingestion import file_reader as parsing
from api.money.ingestion.batches import LandingSettings
from api.money.ingestion.models import ImportBatch, LandingFile
from api.money.ingestion.parse import apply_parse, enqueue_parse, landing_zone, spreadsheet_limits


class SpooledFile(Protocol):
    """An upload the router streamed to disk (`api.rpc.uploads.SpooledFile`), hashed on the way in."""

    @property
    def path(self) -> Path: ...
    @property
    def size(self) -> int: ...
    @property
    def sha256(self) -> str: ...
    def read_bytes(self) -> bytes: ...


def upload(
    db: Session,
    *,
    settings: LandingSettings,
    organization_id: int,
    client_id: int,
    user_id: int,
    filename: str,
    content_type: str | None,
    data: bytes | SpooledFile,
    profile_name: str | None,
    accepts: frozenset[str] | None,
    procedure: str,
) -> tuple[ImportBatch, bool]:
    """Store the file, parse it into a batch (or a failed batch with its report); (batch, duplicate).

    `data` is the bytes (JSON callers) or the spooled file the router streamed to disk. A file above
    `upload_parse_in_request_max_bytes` is only stored here: its batch is `parsing` and the job queue
    parses it (`job_handlers.parse_import_batch`), so a big upload never sits whole in the API's memory.
    """
    filename = (filename or "upload.bin").strip()[:255] or "upload.bin"
    spooled, size, content = _content(data, settings)
    source_format = _accepted_format(content, spooled, filename, accepts, procedure)
    profile = resolve_profile(db, profile_name) if profile_name else None
    if profile is not None and source_format not in parsing.TABULAR_FORMATS:
        raise InvalidInput(f"A connector profile applies to tabular files; '{filename}' is {source_format}")

    digest = spooled.sha256 if spooled else content_sha256(content or b"")
    existing = db.scalar(select(ImportBatch).where(ImportBatch.content_sha256 == digest).order_by(ImportBatch.id))
    if existing is not None:
        return existing, True

    stored = _store(landing_zone(settings), spooled, content)
    landing = LandingFile(
        content_sha256=stored.sha256,
        size_bytes=stored.size,
        original_filename=filename,
        content_type=content_type,
        detected_format=source_format,
        uploaded_by=user_id,
    )
    db.add(landing)
    db.flush()
    batch = ImportBatch(
        landing_file_id=landing.id,
        kind="tabular_unknown",
        source_filename=filename,
        content_sha256=digest,
        size_bytes=size,
        source_format=source_format,
        profile_name=profile.name if profile else None,
        status="parsed" if content is not None else "parsing",
        parser_version=parsing.PARSER_VERSION,
        created_by=user_id,
        totals={},
        quality={},
    )
    if content is None:
        db.add(batch)
        db.flush()
        enqueue_parse(db, batch, settings)
        return batch, False
    apply_parse(
        db,
        batch,
        content,
        filename=filename,
        source_format=source_format,
        profile=profile,
        organization_id=organization_id,
        client_id=client_id,
        limits=spreadsheet_limits(settings),
    )
    return batch, False


def _content(data: bytes | SpooledFile, settings: LandingSettings) -> tuple[SpooledFile | None, int, bytes | None]:
    """(the spooled file if any, size, the bytes when the file is parsed in the request else None)."""
    if isinstance(data, bytes):
        return None, len(data), data
    in_request = data.size <= settings.upload_parse_in_request_max_bytes
    return data, data.size, data.read_bytes() if in_request else None


def _store(zone: LandingZone, spooled: SpooledFile | None, content: bytes | None) -> StoredFile:
    if spooled is not None:
        return zone.store_file(spooled.path, spooled.sha256, spooled.size)
    return zone.store(content or b"")


def _accepted_format(
    data: bytes | None, spooled: SpooledFile | None, filename: str, accepts: frozenset[str] | None, procedure: str
) -> str:
    """The detected source format, if it is one `procedure` takes; InvalidInput naming what was seen otherwise."""
    try:
        if data is not None:
            source_format = parsing.detect(data, filename)
        else:
            assert spooled is not None  # one of the two is always given
            source_format = parsing.detect_file(spooled.path, filename)
    except parsing.UnsupportedFormat as exc:
        raise InvalidInput(f"Cannot import {exc}") from None
    if accepts is not None and source_format not in accepts:
        raise InvalidInput(
            f"{procedure} takes {', '.join(sorted(accepts))} files; '{filename}' is "
            f"{source_format}. Use ingestion.uploadUniversal for any supported format",
        )
    return source_format
