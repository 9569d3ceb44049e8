"""The default connector profile of each connector kind a request may ask for (pure, no I/O beyond the
built-in profiles shipped with the parsers).

A kind backed by a built-in tabular profile is provisioned for the new client as its own copy, named
`onboarding_<kind>`, so the client can adjust it without touching the built-in; X12 835 remittances need
no profile (the X12 parser reads them as they are).
"""

from __future__ import annotations

from typing import Any

from pipelines.ingest.tabular import builtin_profile

CONNECTOR_KINDS: dict[str, str | None] = {
    "era_835": None,
    "claims_export": "epic_claims_export",
    "payments_export": "generic_payments",
    "denials_export": "generic_denials",
    "bank_deposits": "generic_bank_deposits",
}


def profile_name(kind: str) -> str:
    return f"onboarding_{kind}"


def default_profile(kind: str) -> dict[str, Any] | None:
    """The profile definition provisioned for `kind`, or None when the kind needs none."""
    base = CONNECTOR_KINDS[kind]
    if base is None:
        return None
    definition = builtin_profile(base).model_dump(mode="json")
    definition["name"] = profile_name(kind)
    definition["description"] = f"Provisioned at onboarding from the built-in '{base}' profile"
    return definition
