"""Who is calling and in which tenant: the identity every domain reads.

Resolved by the platform's auth package before any domain work; domains only
read these values (they never resolve tokens themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.core.permissions import permissions_for


@dataclass(frozen=True)
class Principal:
    """A signed-in caller."""

    user_id: int
    email: str
    method: str  # session | api_key | oidc | smart
    is_platform_admin: bool = False
    session_id: int | None = None
    api_key_id: int | None = None
    api_key_org_id: int | None = None  # an API key acts only inside its organization
    # A SMART backend client's access token (method "smart"): no person, bound to one client of one
    # organization, and only for procedures declaring `smart_scopes`, within these scopes.
    smart: SmartGrant | None = None


@dataclass(frozen=True)
class SmartGrant:
    """What a SMART access token may do: its registration, the tenant it is bound to, its scopes."""

    registration_id: int
    organization_id: int
    client_id: int
    scopes: frozenset[str]


@dataclass(frozen=True)
class Tenant:
    """The organization and client a call acts in, with the caller's role there.

    `reach` is every client of the organization the caller's membership reaches: None for an
    organization-wide membership (all clients, present and future), else the listed clients (always
    holding `client_id`). Whatever a procedure answers across clients is limited to it.
    """

    organization_id: int
    client_id: int
    role: str
    reach: frozenset[int] | None

    @property
    def organization_wide(self) -> bool:
        return self.reach is None

    def reaches(self, client_id: int) -> bool:
        return self.reach is None or client_id in self.reach

    @property
    def permissions(self) -> frozenset[str]:
        return permissions_for(self.role)


@dataclass(frozen=True)
class MembershipInfo:
    """One organization a user belongs to, with their role there."""

    organization_id: int
    organization_name: str
    role: str


@dataclass(frozen=True)
class VerifiedIdentity:
    """Who an external OpenID Connect provider vouches a bearer token is (its verified claims)."""

    issuer: str
    subject: str
    email: str | None
    claims: dict[str, Any]
