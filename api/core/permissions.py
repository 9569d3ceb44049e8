"""Roles and what they may do: one table, read by the router and securityContext."""

from __future__ import annotations

ROLES: tuple[str, ...] = ("admin", "manager", "specialist", "analyst", "auditor")

# permission -> roles that hold it. Queries need "read" and mutations "write"
# unless a procedure declares something narrower.
PERMISSIONS: dict[str, frozenset[str]] = {
    "read": frozenset(ROLES),
    "write": frozenset({"admin", "manager", "specialist"}),
    "analyze": frozenset({"admin", "manager", "analyst"}),
    "approve": frozenset({"admin", "manager"}),
    "manage": frozenset({"admin"}),
    "audit": frozenset({"admin", "manager", "auditor"}),
}

PERMISSION_DESCRIPTIONS: dict[str, str] = {
    "read": "see the organization's operational and analytical data",
    "write": "change operational records (claims, cases, uploads, drafts)",
    "analyze": "run pipelines, simulations and model training",
    "approve": "decide approvals requested by someone else",
    "manage": "manage clients, members, roles and API keys",
    "audit": "read and verify the audit log",
}


def permissions_for(role: str) -> frozenset[str]:
    return frozenset(p for p, roles in PERMISSIONS.items() if role in roles)


def explain(role: str | None, permission: str) -> tuple[bool, str]:
    """Why `role` does or does not hold `permission`, in words for a person."""
    if permission not in PERMISSIONS:
        return False, f"'{permission}' is not a permission (known: {', '.join(PERMISSIONS)})"
    holders = sorted(PERMISSIONS[permission])
    if role is None:
        return False, f"you have no role here; '{permission}' needs one of {', '.join(holders)}"
    if role in PERMISSIONS[permission]:
        return True, f"role '{role}' grants '{permission}' ({PERMISSION_DESCRIPTIONS[permission]})"
    return False, f"role '{role}' does not grant '{permission}'; it needs one of {', '.join(holders)}"
