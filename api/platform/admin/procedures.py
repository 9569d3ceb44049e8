"""admin.*: platform administration (platform administrators only)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, model_validator
from sqlalchemy import func, select

from api.core.errors import NotFound, PreconditionFailed
from api.platform.organizations import service as organizations
from api.platform.organizations.models import Client, Membership, Organization
from api.rpc.context import UserContext
from api.rpc.procedure import rpc
from api.rpc.schema import Output, Page, PageInput, Schema, paginate
from api.rpc.text import SINGLE_LINE

router = rpc.namespace("admin")


class OrganizationSummary(Output):
    id: int
    name: str
    slug: str
    status: str
    created_at: datetime
    clients: int
    members: int


class SuspendIn(Schema):
    organization_id: int
    suspended: bool = Field(default=True, description="false re-activates the organization")
    reason: str = Field(min_length=3, max_length=500)


class SettingsOut(Output):
    environment: str
    database_backend: str
    rpc_max_body_bytes: int
    upload_max_bytes: int
    session_ttl_hours: int
    oidc_enabled: bool
    procedures: int


@router.query("listOrganizations", auth="platform_admin")
def list_organizations(ctx: UserContext, input: PageInput) -> Page[OrganizationSummary]:
    """Every organization on the platform with client and member counts."""
    page = paginate(ctx.db, organizations.organizations_statement(), Organization.id, input, lambda o: o)
    ids = [o.id for o in page.items]
    clients = dict(
        ctx.db.execute(
            select(Client.organization_id, func.count())
            .where(Client.organization_id.in_(ids))
            .group_by(Client.organization_id)
        ).all()
    )
    members = dict(
        ctx.db.execute(
            select(Membership.organization_id, func.count())
            .where(Membership.organization_id.in_(ids))
            .group_by(Membership.organization_id)
        ).all()
    )
    items = [
        OrganizationSummary(
            id=o.id,
            name=o.name,
            slug=o.slug,
            status=o.status,
            created_at=o.created_at,
            clients=clients.get(o.id, 0),
            members=members.get(o.id, 0),
        )
        for o in page.items
    ]
    return Page[OrganizationSummary](items=items, next_cursor=page.next_cursor)


@router.mutation("suspendOrganization", auth="platform_admin")
def suspend_organization(ctx: UserContext, input: SuspendIn) -> OrganizationSummary:
    """Suspend (or re-activate) an organization: its members' calls are refused while suspended."""
    org = ctx.db.get(Organization, input.organization_id)
    if org is None:
        raise NotFound(f"Organization {input.organization_id} was not found")
    before = org.status
    org.status = "suspended" if input.suspended else "active"
    ctx.note("organization", org.id, before={"status": before}, after={"status": org.status, "reason": input.reason})
    # A count always returns one row, so scalar_one() types it as int rather than int | None.
    clients = ctx.db.execute(
        select(func.count()).select_from(Client).where(Client.organization_id == org.id)
    ).scalar_one()
    members = ctx.db.execute(
        select(func.count()).select_from(Membership).where(Membership.organization_id == org.id)
    ).scalar_one()
    return OrganizationSummary(
        id=org.id,
        name=org.name,
        slug=org.slug,
        status=org.status,
        created_at=org.created_at,
        clients=clients,
        members=members,
    )


@router.query("settings", auth="platform_admin")
def settings(ctx: UserContext) -> SettingsOut:
    """Effective runtime settings (never secrets)."""
    s = ctx.services.settings
    return SettingsOut(
        environment=s.environment,
        database_backend=ctx.services.database.engine.dialect.name,
        rpc_max_body_bytes=s.rpc_max_body_bytes,
        upload_max_bytes=s.upload_max_bytes,
        session_ttl_hours=s.session_ttl_hours,
        oidc_enabled=ctx.services.oidc_verifier is not None,
        procedures=len(rpc.procedures),
    )


class RotateKeysIn(Schema):
    emergency: bool = Field(
        default=False,
        description="a compromised key: the new keys sign at once and every other key is unpublished now "
        "(tokens they signed stop verifying); a reason is required",
    )
    reason: Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE] | None = None

    @model_validator(mode="after")
    def _emergency_needs_reason(self) -> RotateKeysIn:
        if self.emergency and self.reason is None:
            raise ValueError("an emergency rotation needs a reason")
        return self


class RotatedKeysOut(Output):
    published_kids: list[str] = Field(description="kids in the JWKS after the rotation (current, next and retiring)")
    signing_kids: list[str] = Field(description="kids that sign new tokens now (one per algorithm)")
    next_kids: list[str] = Field(description="kids published ahead of their first signature")
    next_signs_from: datetime | None = Field(description="when the next keys start signing")


@router.mutation("rotateSigningKeys", auth="platform_admin")
def rotate_signing_keys(ctx: UserContext, input: RotateKeysIn) -> RotatedKeysOut:
    """Publish a new ES384 + RS384 SMART key pair ahead of its first signature: it is in the JWKS at
    once and signs from smart_key_publish_ahead_hours later; the current keys sign until then and stay
    published smart_key_retire_after_days more, then are pruned. While a rotation's next keys do not
    sign yet, another is PRECONDITION_FAILED. `emergency` (with a reason) is for a compromised key:
    the new keys sign at once and every other key leaves the JWKS now."""
    from api.infra.signing.keyset import RotationPending
    from api.infra.signing.service import SigningKeysUnavailable

    keys = ctx.services.signing_keys
    if keys is None:
        raise PreconditionFailed("Signing keys are not configured on this server")
    try:
        rotation = keys.rotate(emergency=input.emergency)
    except RotationPending as exc:
        raise PreconditionFailed(
            f"A rotation is under way: {exc}. Rotate again after that, or use emergency for a compromised key"
        ) from None
    except SigningKeysUnavailable as exc:
        raise PreconditionFailed(f"Cannot rotate: {exc}. Fix SMART_KEYS_PATH and retry") from None
    out = RotatedKeysOut.model_validate(rotation, from_attributes=True)
    ctx.note("signing_keys", "jwks", after=out.model_dump(mode="json", include={"published_kids", "next_signs_from"}))
    return out
