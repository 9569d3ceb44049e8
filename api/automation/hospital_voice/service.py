"""Reading and updating a client's voice settings. Never commits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.automation.hospital_voice import rules
from api.automation.hospital_voice.models import HospitalVoiceSettings
from api.infra.db.base import utcnow


@dataclass(frozen=True)
class VoiceSettings:
    """The effective settings of a client (defaults filled in)."""

    caller_name: str
    callback_number: str | None
    npi: str | None
    tin: str | None
    timezone: str
    windows: list[rules.Window]
    scripts: dict[str, str]
    custom_scripts: list[str] = field(default_factory=list)
    is_default: bool = True
    updated_by_user_id: int | None = None
    updated_at: datetime | None = None

    def script_for(self, goal: str) -> str:
        return self.scripts[goal]


@dataclass(frozen=True)
class Hours:
    """Calling hours: an IANA time zone and the weekly windows (checked by `rules`)."""

    timezone: str
    windows: tuple[rules.Window, ...]


@dataclass(frozen=True)
class SettingsChange:
    """The fields to change; None keeps a field's value (or default)."""

    caller_name: str | None = None
    callback_number: str | None = None
    npi: str | None = None
    tin: str | None = None
    hours: Hours | None = None
    scripts: Mapping[str, str] | None = None


def _row(db: Session) -> HospitalVoiceSettings | None:
    return db.scalar(select(HospitalVoiceSettings))


def settings(db: Session) -> VoiceSettings:
    """The client's settings, with the defaults where nothing was set."""
    row = _row(db)
    if row is None:
        return VoiceSettings(
            caller_name=rules.DEFAULT_CALLER_NAME,
            callback_number=None,
            npi=None,
            tin=None,
            timezone=rules.DEFAULT_TIMEZONE,
            windows=[rules.Window(*w) for w in rules.DEFAULT_WINDOWS],
            scripts=dict(rules.DEFAULT_SCRIPTS),
        )
    return VoiceSettings(
        caller_name=row.caller_name,
        callback_number=row.callback_number,
        npi=row.npi,
        tin=row.tin,
        timezone=row.timezone,
        windows=[rules.Window(w["day"], w["start"], w["end"]) for w in row.windows],
        scripts={**rules.DEFAULT_SCRIPTS, **row.scripts},
        custom_scripts=sorted(row.scripts),
        is_default=False,
        updated_by_user_id=row.updated_by_user_id,
        updated_at=row.updated_at,
    )


def _apply(row: HospitalVoiceSettings, data: SettingsChange) -> None:
    if data.caller_name is not None:
        row.caller_name = data.caller_name
    if data.callback_number is not None:
        row.callback_number = rules.normalise_phone(data.callback_number)
    if data.npi is not None:
        row.npi = rules.normalise_npi(data.npi)
    if data.tin is not None:
        row.tin = rules.normalise_tin(data.tin)
    if data.hours is not None:
        row.timezone = rules.check_timezone(data.hours.timezone)
        windows = rules.check_windows(data.hours.windows)
        row.windows = [{"day": w.day, "start": w.start, "end": w.end} for w in windows]
    if data.scripts is not None:
        checked: dict[str, str] = {goal: rules.check_script(goal, text) for goal, text in data.scripts.items()}
        row.scripts = {**row.scripts, **checked}


def update(db: Session, data: SettingsChange, *, user_id: int) -> VoiceSettings:
    """Change the fields given (each validated; nothing is stored if one is refused)."""
    row = _row(db)
    if row is None:
        current = settings(db)
        row = HospitalVoiceSettings(
            caller_name=current.caller_name,
            timezone=current.timezone,
            windows=[{"day": w.day, "start": w.start, "end": w.end} for w in current.windows],
            scripts={},
            updated_by_user_id=user_id,
            updated_at=utcnow(),
        )
        _apply(row, data)
        db.add(row)
    else:
        _apply(row, data)
    row.updated_by_user_id, row.updated_at = user_id, utcnow()
    db.flush()
    return settings(db)


def view(current: VoiceSettings) -> dict[str, Any]:
    """The wire shape (and what the audit digests: identifiers of the provider, no PHI)."""
    return {
        "caller_name": current.caller_name,
        "callback_number": current.callback_number,
        "npi": current.npi,
        "tin": current.tin,
        "hours": {
            "timezone": current.timezone,
            "windows": [{"day": w.day, "start": w.start, "end": w.end} for w in current.windows],
        },
        "scripts": current.scripts,
        "custom_scripts": current.custom_scripts,
        "is_default": current.is_default,
        "updated_by_user_id": current.updated_by_user_id,
        "updated_at": current.updated_at,
    }
