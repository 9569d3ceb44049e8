"""What a procedure knows about its call: caller, tenant, database, audit note."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from api.core.permissions import permissions_for
from api.rpc.errors import RpcError


@dataclass(frozen=True)
class Principal:
    user_id: int
    email: str
    method: str  # session | api_key | oidc
    is_platform_admin: bool = False
    session_id: int | None = None
    api_key_id: int | None = None
    api_key_org_id: int | None = None  # an API key acts only inside its organization


@dataclass(frozen=True)
class Tenant:
    organization_id: int
    client_id: int
    role: str

    @property
    def permissions(self) -> frozenset[str]:
        return permissions_for(self.role)


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


@dataclass
class Context:
    db: Session
    procedure: str
    services: Any  # api.app.Services: settings, database, signing keys, ...
    principal: Principal | None = None
    tenant: Tenant | None = None
    client_ip: str | None = None
    audit: AuditNote = field(default_factory=AuditNote)

    @property
    def user_id(self) -> int:
        if self.principal is None:
            raise RpcError("UNAUTHORIZED", "Sign in first: send 'Authorization: Bearer <token>'")
        return self.principal.user_id

    @property
    def org_id(self) -> int:
        return self._tenant().organization_id

    @property
    def client_id(self) -> int:
        return self._tenant().client_id

    def _tenant(self) -> Tenant:
        if self.tenant is None:
            raise RuntimeError(f"{self.procedure} reads the tenant but is not declared auth='tenant'")
        return self.tenant

    def require(self, permission: str) -> None:
        """Check a permission beyond the one the procedure declares."""
        from api.core.permissions import explain

        granted, reason = explain(self.tenant.role if self.tenant else None, permission)
        if not granted:
            raise RpcError("FORBIDDEN", f"Not allowed: {reason}")

    def note(self, target_type: str, target_id: object, *, before: Any = None, after: Any = None) -> None:
        self.audit.target_type = target_type
        self.audit.target_id = str(target_id)
        if before is not None:
            self.audit.before = before
        if after is not None:
            self.audit.after = after
