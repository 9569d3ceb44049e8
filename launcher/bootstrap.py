"""First-run setup of the embedded default: a demo organization, client and admin."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass

from sqlalchemy import select

from api.core.settings import Settings
from api.denials.notifications.service import schedule_deadline_run
from api.evidence.evidence_control.service import schedule_purge_run
from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.infra.private_files import PRIVATE_FILE, private_dir
from api.platform.auth import service as auth_service
from api.platform.auth.models import User
from api.platform.auth.secrets import verify_password
from api.platform.organizations import service as org_service
from api.platform.organizations.models import Client, Organization

DEMO_ORG_SLUG = "demo-health"


@dataclass(frozen=True)
class BootstrapResult:
    email: str
    user_id: int
    password: str | None  # None when the admin existed before and the password is not ours to show
    organization_id: int
    client_id: int
    created: bool


def _password(settings: Settings) -> str:
    if settings.bootstrap_admin_password:
        return settings.bootstrap_admin_password
    path = settings.resolved_data_dir / "secrets" / "bootstrap_admin_password"
    if path.exists():
        return path.read_text().strip()
    private_dir(path.parent)
    password = secrets.token_urlsafe(12)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    os.fchmod(fd, PRIVATE_FILE)
    with os.fdopen(fd, "w") as fh:
        fh.write(password)
    return password


def bootstrap(settings: Settings, database: Database) -> BootstrapResult:
    email = auth_service.normalise_email(settings.bootstrap_admin_email)
    password = _password(settings)
    with database.transaction() as db:
        user = db.scalar(select(User).where(User.email == email))
        created = user is None
        if user is None:
            user = auth_service.create_user(db, email, password, display_name="Platform admin", is_platform_admin=True)
        org = db.scalar(select(Organization).where(Organization.slug == DEMO_ORG_SLUG))
        if org is None:
            org, client = org_service.create_organization(
                db, "Demo Health System", DEMO_ORG_SLUG, user.id, "Demo General Hospital", "1234567893"
            )
        else:
            existing = db.scalar(select(Client).where(Client.organization_id == org.id).order_by(Client.id))
            if existing is None:
                # Someone removed every facility of the demo organization; bootstrap does not guess which to recreate.
                raise RuntimeError(
                    f"organization {DEMO_ORG_SLUG!r} has no client; add one with organizations.addClient"
                )
            client = existing
        # The daily sweep that tells case owners about deadlines coming up; it queues its own successor,
        # so this only starts it the first time (and again if someone removed the queued run).
        schedule_deadline_run(db, utcnow())
        schedule_purge_run(db, utcnow())  # the daily evidence retention sweep, likewise self-renewing
        shown = password if created or verify_password(user.password_hash, password) else None
        return BootstrapResult(
            email=email, user_id=user.id, password=shown, organization_id=org.id, client_id=client.id, created=created
        )
