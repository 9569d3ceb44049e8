"""securityContext.*: what the caller may do here, and why."""

from __future__ import annotations

from pydantic import Field

from api.core.permissions import PERMISSIONS, explain
from api.platform.organizations.models import Client, Organization
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Output, Schema

router = rpc.namespace("securityContext")


class SecurityContextOut(Output):
    user_id: int
    email: str
    auth_method: str
    organization_id: int
    organization_name: str
    client_id: int
    client_name: str
    roles: list[str]
    permissions: list[str]


class ExplainIn(Schema):
    permission: str = Field(min_length=1, max_length=40, description=f"One of: {', '.join(PERMISSIONS)}")


class ExplainOut(Output):
    permission: str
    granted: bool
    reason: str
    role: str
    roles_granting: list[str]


@router.query("current")
def current(ctx: Context) -> SecurityContextOut:
    """The caller, the organization and client this call acts in, the role and its permissions."""
    org = ctx.db.get(Organization, ctx.org_id)
    client = ctx.db.get(Client, ctx.client_id)
    # The tenant resolver loaded both rows to authorise this call; they cannot be missing here.
    assert org is not None and client is not None
    return SecurityContextOut(
        user_id=ctx.user_id,
        email=ctx.principal.email,
        auth_method=ctx.principal.method,
        organization_id=org.id,
        organization_name=org.name,
        client_id=client.id,
        client_name=client.name,
        roles=[ctx.tenant.role],
        permissions=sorted(ctx.tenant.permissions),
    )


@router.query("explain")
def explain_permission(ctx: Context, input: ExplainIn) -> ExplainOut:
    """Why a permission is granted or denied to the caller here."""
    granted, reason = explain(ctx.tenant.role, input.permission)
    return ExplainOut(
        permission=input.permission,
        granted=granted,
        reason=reason,
        role=ctx.tenant.role,
        roles_granting=sorted(PERMISSIONS.get(input.permission, ())),
    )
