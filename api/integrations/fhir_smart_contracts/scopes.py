"""SMART system scopes for the FHIR read API (pure, no I/O).

Accepted grammar: SMART v2 `system/<Resource|*>.<perms>` where perms are letters of `cruds` in that
order (e.g. `rs`, `r`, `s`), and SMART v1 `system/<Resource|*>.<read|write|*>`. The API is read-only,
so a scope asking to create, update or delete (v2 c/u/d, v1 write or *) is refused; so are granular
v2 scopes (`?param=value`) and any resource other than the four the platform serves (Patient is
served only as a reference inside them, never read).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

RESOURCES: tuple[str, ...] = ("Claim", "ClaimResponse", "ExplanationOfBenefit", "Coverage")
_V2 = re.compile(r"^system/(\*|[A-Za-z]{1,64})\.([cruds]{1,5})$")
_V1 = re.compile(r"^system/(\*|[A-Za-z]{1,64})\.(read|write|\*)$")
_V1_PERMS = {"read": frozenset("rs"), "write": frozenset("cud"), "*": frozenset("cruds")}
_READ_ONLY = frozenset("rs")


@dataclass(frozen=True)
class Scope:
    resource: str  # a resource type or "*"
    perms: frozenset[str]  # letters of cruds


def parse(scope: str) -> Scope | None:
    """The scope's resource and permissions, or None when it is not a SMART system scope."""
    if (v2 := _V2.match(scope)) is not None:
        perms = v2.group(2)
        if perms != "".join(c for c in "cruds" if c in perms):
            return None  # letters repeated or out of order
        return Scope(v2.group(1), frozenset(perms))
    if (v1 := _V1.match(scope)) is not None:
        return Scope(v1.group(1), _V1_PERMS[v1.group(2)])
    return None


def problem(scope: str) -> str | None:
    """Why this scope cannot be registered or requested here, or None when it can."""
    if "?" in scope:
        return "granular scopes (with '?') are not supported; use e.g. 'system/Claim.rs'"
    parsed = parse(scope)
    if parsed is None:
        return "is not a SMART system scope (e.g. 'system/Claim.rs', 'system/*.read')"
    if parsed.resource != "*" and parsed.resource not in RESOURCES:
        return f"'{parsed.resource}' is not served here; the resources are {', '.join(RESOURCES)} (or '*')"
    if not parsed.perms <= _READ_ONLY:
        return "asks to write; the FHIR API is read-only: use '.rs' / '.r' (v2) or '.read' (v1)"
    return None


def covers(granted: Scope, wanted: Scope) -> bool:
    return granted.resource in ("*", wanted.resource) and wanted.perms <= granted.perms


def grant(requested: Iterable[str], registered: Iterable[str]) -> list[str]:
    """The requested scopes a registration allows (requested ∩ registered, a registered wildcard or
    wider permission covering a narrower request), in request order, each once."""
    allowed = [s for s in (parse(r) for r in registered) if s is not None]
    granted: list[str] = []
    for scope in requested:
        wanted = parse(scope)
        if wanted is None or problem(scope) is not None or scope in granted:
            continue
        if any(covers(a, wanted) for a in allowed):
            granted.append(scope)
    return granted


def allows_read(scopes: Iterable[str], resource: str) -> bool:
    """Whether these (granted) scopes let a client read one `resource` by id."""
    wanted = Scope(resource, frozenset("r"))
    return any(s is not None and covers(s, wanted) for s in (parse(x) for x in scopes))


def allows_search(scopes: Iterable[str], resource: str) -> bool:
    """Whether these (granted) scopes let a client search `resource` (v2 `s`; v1 `read` covers it)."""
    wanted = Scope(resource, frozenset("s"))
    return any(s is not None and covers(s, wanted) for s in (parse(x) for x in scopes))
