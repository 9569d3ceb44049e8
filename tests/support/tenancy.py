"""Organizations and members for tests, made the way the platform makes them now.

`organizations.create` is for platform administrators, so a test's organization is created through the
service (what `launcher.bootstrap` does too) for a user who becomes its organization-wide admin. A second
member joins through a real invitation: made by the platform (no inviter, so separation of duties
treats them as independent of everyone), mailed through the outbox, and accepted over the wire with the
token read from the mail.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from api.platform.organizations import service as organizations
from tests.support.outbox import invite_token
from tests.support.rpc_client import Rpc


def new_organization(
    services: Any, owner_id: int, name: str | None = None, client_name: str = "General Hospital"
) -> dict[str, Any]:
    """A new organization owned by `owner_id`; the same keys as organizations.create's answer."""
    with services.database.transaction() as db:
        org, client = organizations.create_organization(
            db, name or f"Org {uuid.uuid4().hex[:8]}", None, owner_id, client_name, None
        )
        return {"id": org.id, "name": org.name, "slug": org.slug, "firstClientId": client.id}


def invite(
    services: Any,
    organization_id: int,
    email: str,
    role: str,
    *,
    client_ids: Sequence[int] | None = None,
    invited_by: int | None = None,
) -> str:
    """Invite `email` (by the platform unless `invited_by`); the token, read from the delivered mail."""
    with services.database.transaction() as db:
        organizations.invite(
            db,
            services.outbox,
            organization_id=organization_id,
            email=email,
            role=role,
            invited_by=invited_by,
            client_ids=client_ids,
            public_base_url=services.settings.public_base_url,
        )
    return invite_token(services.settings.resolved_data_dir, email)


def join(
    services: Any, rpc: Rpc, organization_id: int, role: str, *, client_ids: Sequence[int] | None = None
) -> tuple[int, str, str, str]:
    """A new user who joins the organization with `role` (reaching `client_ids`, None: every client):
    (user id, email, password, session token)."""
    from tests.conftest import make_user, sign_in

    user_id, email, password = make_user(services)
    token = invite(services, organization_id, email, role, client_ids=client_ids)
    session = sign_in(rpc, email, password)
    rpc.as_(session).mutation("organizations.acceptInvite", {"token": token}).data
    return user_id, email, password, session
