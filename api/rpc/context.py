"""What a procedure knows about its call: caller, tenant, database, audit note.

One context class per auth level, so a procedure's signature says what it may
rely on and the type checker holds it to that:

- `PublicContext`: no caller (`auth="public"`);
- `UserContext`: a signed-in caller, `principal` is never None (`auth="user"` and
  `auth="platform_admin"`);
- `Context`: a caller acting in a tenant, `principal` and `tenant` are never None
  (`auth="tenant"`, the default and by far the most common).

The registry refuses a procedure whose `ctx` annotation does not match its
auth level, and the executor builds exactly that class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from api.core.errors import Forbidden
from api.core.identity import Principal, Tenant
from api.core.permissions import explain
from api.infra.services.container import Services


@dataclass
class AuditNote:
    """What a mutation tells the audit log about itself (digested, never stored in clear)."""

    target_type: str | None = None
    target_id: str | None = None
    before: Any = None
    after: Any = None
    # For calls without a tenant (login, organizations.create): who and which org.
    actor_user_id: int | None = None
    organization_id: int | None = None


@dataclass(kw_only=True)
class PublicContext:
    """A call by anyone: the database session and the shared services."""

    db: Session
    procedure: str
    services: Services
    client_ip: str | None = None
    audit: AuditNote = field(default_factory=AuditNote)

    def note(self, target_type: str, target_id: object, *, before: Any = None, after: Any = None) -> None:
        """Name the record a mutation changed (and optionally its before/after) for the audit log."""
        self.audit.target_type = target_type
        self.audit.target_id = str(target_id)
        if before is not None:
            self.audit.before = before
        if after is not None:
            self.audit.after = after


@dataclass(kw_only=True)
class UserContext(PublicContext):
    """A call by a signed-in caller, outside any tenant."""

    principal: Principal

    @property
    def user_id(self) -> int:
        return self.principal.user_id


@dataclass(kw_only=True)
class Context(UserContext):
    """A call by a member acting in one organization's client; tenancy is already enforced."""

    tenant: Tenant

    @property
    def org_id(self) -> int:
        return self.tenant.organization_id

    @property
    def client_id(self) -> int:
        return self.tenant.client_id

    def require(self, permission: str) -> None:
        """Check a permission beyond the one the procedure declares."""
        granted, reason = explain(self.tenant.role, permission)
        if not granted:
            raise Forbidden(f"Not allowed: {reason}")

    def require_organization_wide(self, what: str) -> None:
        """Refuse a caller whose membership reaches only some of the organization's clients: `what`
        concerns the whole organization (its clients, onboarding, billing), not one hospital."""
        if not self.tenant.organization_wide:
            raise Forbidden(f"{what} concerns the whole organization; your membership reaches only some of its clients")


AnyContext = PublicContext | UserContext | Context

CONTEXT_FOR_AUTH: dict[str, type[PublicContext]] = {
    "public": PublicContext,
    "user": UserContext,
    "platform_admin": UserContext,
    "tenant": Context,
}
