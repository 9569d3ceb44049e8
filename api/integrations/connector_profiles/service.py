"""Connector profiles: the built-in ones plus those provisioned for the client."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, NotFound
from api.integrations.connector_profiles.models import ConnectorProfileRecord
from pipelines.ingest.tabular import (
    ConnectorProfile,
    ProfileError,
    list_builtin_profiles,
    provision_profile,
    validate_profile,
)


def client_profiles(db: Session) -> list[ConnectorProfileRecord]:
    """The caller's client's provisioned profiles (tenant-scoped by the session)."""
    return list(db.scalars(select(ConnectorProfileRecord).order_by(ConnectorProfileRecord.name)))


def resolve_profile(db: Session, name: str) -> ConnectorProfile:
    """A profile by name: built-in first, then the client's own; NOT_FOUND naming the choices."""
    for profile in list_builtin_profiles():
        if profile.name == name:
            return profile
    record = db.scalar(select(ConnectorProfileRecord).where(ConnectorProfileRecord.name == name))
    if record is not None:
        return validate_profile(record.definition)
    known = [p.name for p in list_builtin_profiles()] + [r.name for r in client_profiles(db)]
    raise NotFound(f"No connector profile named '{name}' for this client; known: {', '.join(known)}")


def provision(db: Session, definition: dict[str, Any], user_id: int) -> ConnectorProfileRecord:
    """Validate a custom profile (every problem reported at once) and store it for the client."""
    existing = [r.name for r in client_profiles(db)]
    try:
        profile = provision_profile(definition, existing_names=existing)
    except ProfileError as exc:
        conflict = any("already exists" in p for p in exc.problems)
        error = Conflict if conflict else InvalidInput
        raise error(
            f"Invalid connector profile: {'; '.join(exc.problems)}", details={"problems": exc.problems}
        ) from None
    record = ConnectorProfileRecord(
        name=profile.name, entity=profile.entity, definition=profile.model_dump(mode="json"), created_by=user_id
    )
    db.add(record)
    db.flush()
    return record


def provision_named(db: Session, definition: dict[str, Any], user_id: int) -> str:
    """`provision`, answering the stored profile's name (the services' `provision_connector_profile`,
    with which hospitalOnboarding provisions a new client's default profiles)."""
    return provision(db, definition, user_id).name
