"""Connector profiles: how one source system's export maps to our entities.

Built-in profiles are JSON files in ``builtin_profiles/``; custom ones arrive as dicts
(e.g. from the ``connectorProfiles.provision`` RPC) and go through
``validate_profile`` / ``provision_profile``, which report every problem at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipelines.ingest.tabular.entities import entity_spec
from pipelines.ingest.tabular.errors import ProfileError
from pipelines.ingest.tabular.headers import normalise_header

_NAME = re.compile(r"^[a-z][a-z0-9_]{2,63}$")
_DELIMITERS = {",", "\t", "|", ";"}


class ConnectorProfile(BaseModel):
    """A validated mapping of one source system's columns and formats to ours."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    entity: Literal["claim", "payment", "denial", "deposit"]
    column_map: dict[str, str] = Field(description="source column header -> canonical field")
    delimiter: str | None = Field(default=None, description="None = detect from content")
    date_format: str | None = Field(default=None, description="strftime layout; None = the usual US/ISO layouts")
    money_format: Literal["us", "implied_cents"] = "us"


def validate_profile(raw: Mapping[str, Any]) -> ConnectorProfile:
    """Check a profile dict and return it typed; raises ``ProfileError`` listing every problem."""
    if not isinstance(raw, Mapping):
        raise ProfileError(["profile must be an object"])
    try:
        profile = ConnectorProfile.model_validate(dict(raw))
    except ValidationError as exc:
        raise ProfileError(
            [f"{'.'.join(str(p) for p in err['loc']) or 'profile'}: {err['msg']}" for err in exc.errors()]
        ) from None
    problems = _semantic_problems(profile)
    if problems:
        raise ProfileError(problems)
    return profile


def _semantic_problems(profile: ConnectorProfile) -> list[str]:
    problems: list[str] = []
    if not _NAME.match(profile.name):
        problems.append("name: use 3-64 lower-case letters, digits or underscores, starting with a letter")
    spec = entity_spec(profile.entity)
    fields = set(spec.field_names)
    seen_sources: dict[str, str] = {}
    targets: dict[str, str] = {}
    for source, target in profile.column_map.items():
        key = normalise_header(source)
        if not key:
            problems.append(f"column_map: source column {source!r} has no letters or digits")
            continue
        if key in seen_sources:
            problems.append(f"column_map: {source!r} and {seen_sources[key]!r} are the same column after normalising")
        seen_sources[key] = source
        if target not in fields:
            problems.append(f"column_map[{source!r}]: {target!r} is not a {profile.entity} field")
        elif target in targets:
            problems.append(f"column_map: {target!r} is mapped from both {targets[target]!r} and {source!r}")
        else:
            targets[target] = source
    missing = [name for name in spec.required if name not in targets]
    if missing:
        problems.append(f"column_map: required {profile.entity} field(s) not mapped: {', '.join(missing)}")
    if not any(name in targets for name in spec.identifiers):
        problems.append(f"column_map: map at least one of {', '.join(spec.identifiers)}")
    if profile.delimiter is not None and profile.delimiter not in _DELIMITERS:
        problems.append("delimiter: must be one of ',', tab, '|', ';' or null")
    if profile.date_format is not None:
        problems.extend(_date_format_problems(profile.date_format))
    return problems


def _date_format_problems(fmt: str) -> list[str]:
    directives = set(re.findall(r"%(.)", fmt))
    problems = []
    if not ({"Y", "y"} & directives and {"m", "b", "B"} & directives and {"d", "e"} & directives):
        problems.append("date_format: needs a year (%Y or %y), a month (%m, %b or %B) and a day (%d or %e)")
    unsupported = directives - set("YymdbBe%")
    if unsupported:
        problems.append(f"date_format: unsupported directive(s) {', '.join('%' + d for d in sorted(unsupported))}")
    return problems


@lru_cache(maxsize=1)
def _builtin() -> dict[str, ConnectorProfile]:
    folder = resources.files("pipelines.ingest.tabular").joinpath("builtin_profiles")
    out: dict[str, ConnectorProfile] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            profile = validate_profile(json.loads(entry.read_text(encoding="utf-8")))
            out[profile.name] = profile
    return out


def list_builtin_profiles() -> list[ConnectorProfile]:
    """Every built-in profile, sorted by name."""
    return list(_builtin().values())


def builtin_profile(name: str) -> ConnectorProfile:
    """A built-in profile by name; ``KeyError`` with the known names otherwise."""
    try:
        return _builtin()[name]
    except KeyError:
        raise KeyError(f"no built-in connector profile {name!r}; known: {sorted(_builtin())}") from None


def provision_profile(raw: Mapping[str, Any], *, existing_names: Collection[str] = ()) -> ConnectorProfile:
    """Validate a custom profile and check its name is free (built-ins and ``existing_names``)."""
    profile = validate_profile(raw)
    if profile.name in _builtin() or profile.name in set(existing_names):
        raise ProfileError([f"name: a connector profile called {profile.name!r} already exists"])
    return profile
