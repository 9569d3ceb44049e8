"""Issue 9, findings 5 and 9: password digests in the audit log, and a chain rewritten by an insider.

Both attacks are the ones a reader of the database would run: crack the login digest offline, and
delete an event then re-hash the rest of the chain in SQL so that it verifies again.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update

from api.app import build_services, create_app
from api.platform.audit.digest import SECRET, canonical_json, chain_hash, chained_fields
from api.platform.audit.models import AuditEvent, AuditHead
from api.platform.audit.service import verify_scope
from tests.conftest import make_user, sign_in
from tests.support.rpc_client import Rpc


def _login_event(services, user_id: int, session_id_hint: str | None = None) -> AuditEvent:
    with services.database.transaction() as db:
        return db.scalars(
            select(AuditEvent)
            .where(AuditEvent.procedure == "auth.login", AuditEvent.actor_user_id == user_id)
            .order_by(AuditEvent.id.desc())
        ).first()


def test_the_login_password_is_not_in_the_audit_digest(services, rpc):
    user_id, email, password = make_user(services)
    sign_in(rpc, email, password)
    event = _login_event(services, user_id)
    assert event is not None
    # The attack of finding 5: hash the canonical input with a guessed (here: the right) password.
    sent = {"email": email, "password": password}
    assert event.input_digest != hashlib.sha256(canonical_json(sent).encode()).hexdigest()
    # Even with the installation key, the password is not in the digest: it entered as a constant.
    with_key = hmac.new(services.digest_key, canonical_json(sent).encode(), hashlib.sha256).hexdigest()
    assert event.input_digest != with_key
    redacted = {"email": email, "password": SECRET}
    assert event.input_digest == hmac.new(services.digest_key, canonical_json(redacted).encode(), "sha256").hexdigest()


def test_digests_are_keyed_so_low_entropy_inputs_cannot_be_guessed(services, make_member):
    admin = make_member()
    admin.rpc.mutation("organizations.addClient", {"name": "Guessable Wing", "npi": "1234567893"}).data
    with services.database.transaction() as db:
        event = db.scalars(
            select(AuditEvent).where(
                AuditEvent.scope == f"org:{admin.organization_id}", AuditEvent.procedure == "organizations.addClient"
            )
        ).one()
    # the digest covers the validated input, defaults included (no time zone given: null)
    sent = {"name": "Guessable Wing", "npi": "1234567893", "time_zone": None}
    assert event.input_digest != hashlib.sha256(canonical_json(sent).encode()).hexdigest()
    assert event.input_digest == hmac.new(services.digest_key, canonical_json(sent).encode(), "sha256").hexdigest()
    # The key lives beside the signing keys under DATA_DIR, readable by the service account only.
    key_file = services.settings.resolved_audit_key_path
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert key_file.is_relative_to(services.settings.resolved_data_dir)


@pytest.fixture
def anchored(settings):
    """The app with a checkpoint every 2 events, so a short chain is anchored."""
    services = build_services(settings.model_copy(update={"audit_checkpoint_every": 2}))
    with TestClient(create_app(services=services)) as client:
        yield services, Rpc(client)
    services.close()


def _rewrite_without(services, scope: str, victim_seq: int) -> None:
    """The insider: delete one event, renumber and re-hash every later one, move the head. SQL only."""
    with services.database.transaction() as db:
        db.execute(delete(AuditEvent).where(AuditEvent.scope == scope, AuditEvent.seq == victim_seq))
        rows = db.scalars(
            select(AuditEvent).where(AuditEvent.scope == scope, AuditEvent.seq > victim_seq).order_by(AuditEvent.seq)
        ).all()
        prev = db.scalar(select(AuditEvent.hash).where(AuditEvent.scope == scope, AuditEvent.seq == victim_seq - 1))
        for row in rows:
            row.seq -= 1
            row.prev_hash = prev
            row.hash = chain_hash(prev, chained_fields(row))
            prev = row.hash
            db.flush()
        db.execute(
            update(AuditHead).where(AuditHead.scope == scope).values(seq=len(rows) + victim_seq - 1, last_hash=prev)
        )


def test_a_rewritten_chain_is_detected_by_its_signed_checkpoints(anchored):
    services, rpc = anchored
    # organizations.create is for platform administrators: its event is the chain's first.
    _, email, password = make_user(services, platform_admin=True)
    token = sign_in(rpc, email, password)
    org = rpc.as_(token).mutation("organizations.create", {"name": "Anchored", "firstClientName": "Main"}).data
    admin = rpc.as_(token, org["firstClientId"])
    for name in ("A Wing", "B Wing", "C Wing", "D Wing"):
        admin.mutation("organizations.addClient", {"name": name}).data  # events 2..5; checkpoints at 2 and 4
    assert admin.query("audit.verifyChain").data["valid"] is True
    scope = f"org:{org['id']}"

    _rewrite_without(services, scope, victim_seq=2)
    with services.database.transaction() as db:
        # Without its anchors the rewritten chain is internally consistent: the attack of finding 9.
        assert verify_scope(db, scope).valid is True

    report = admin.query("audit.verifyChain").data
    assert report["valid"] is False and report["firstBrokenSeq"] == 2
    assert "signed checkpoint of event #2" in report["problem"] and report["checkpoints"] >= 2
    # The checkpoints are files under DATA_DIR, signed with the platform key, readable without the database.
    files = list(services.settings.audit_checkpoint_dir.glob("org_*.jwt"))
    assert files and all(stat.S_IMODE(os.stat(f).st_mode) == 0o600 for f in files)
    line = (services.settings.audit_checkpoint_dir / f"org_{org['id']}.jwt").read_text().splitlines()[0]
    claims = services.signing_keys.verify(line)
    assert claims["scope"] == scope and claims["seq"] == 2


def test_a_forged_checkpoint_line_vouches_for_nothing(anchored):
    services, rpc = anchored
    _, email, password = make_user(services, platform_admin=True)
    token = sign_in(rpc, email, password)
    org = rpc.as_(token).mutation("organizations.create", {"name": "Forged", "firstClientName": "Main"}).data
    admin = rpc.as_(token, org["firstClientId"])
    admin.mutation("organizations.addClient", {"name": "A Wing"}).data
    path = services.settings.audit_checkpoint_dir / f"org_{org['id']}.jwt"
    with path.open("a") as fh:
        fh.write("eyJhbGciOiJub25lIn0.eyJzZXEiOjF9.\n")  # unsigned: must be ignored, not trusted
    assert admin.query("audit.verifyChain").data["valid"] is True
