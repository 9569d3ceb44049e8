"""Who is calling and in which tenant: the identity every domain reads.

Resolved by the platform's auth package before any domain work; domains only
read these values (they never resolve tokens themselves).
"""

from __future__ import annotations

from dataclasses import dataclass

from api.core.permissions import permissions_for


@dataclass(frozen=True)
class Principal:
    """A signed-in caller."""

    user_id: int
    email: str
    method: str  # session | api_key | oidc
    is_platform_admin: bool = False
    session_id: int | None = None
    api_key_id: int | None = None
    api_key_org_id: int | None = None  # an API key acts only inside its organization


@dataclass(frozen=True)
class Tenant:
    """The organization and client a call acts in, with the caller's role there."""

    organization_id: int
    client_id: int
    role: str

    @property
    def permissions(self) -> frozenset[str]:
        return permissions_for(self.role)


@dataclass(frozen=True)
class MembershipInfo:
    """One organization a user belongs to, with their role there."""

    organization_id: int
    organization_name: str
    role: str
