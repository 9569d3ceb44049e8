"""The mail outbox (issue 23, finding 5), on SQLite and PostgreSQL: a mail is written in the caller's
transaction and delivered only after it commits (a file only the operator reads, or a real SMTP server on
loopback), a rolled-back call sends nothing, and a failed delivery is retried by the job queue until it
goes out, never lost."""

from __future__ import annotations

import stat
import uuid
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from api.app import build_services, create_app
from api.infra.db.base import utcnow
from api.infra.jobs.models import Job
from api.infra.jobs.worker import Worker
from api.infra.outbox.models import OutboxMessage
from api.infra.outbox.service import DELIVER_JOB_KIND, Outbox
from tests.conftest import make_user, sign_in
from tests.support.outbox import body_of, invite_token, mails_to
from tests.support.rpc_client import Rpc
from tests.support.smtp_server import smtp_server
from tests.support.tenancy import new_organization


def _address() -> str:
    return f"mail-{uuid.uuid4().hex[:10]}@example.test"


def _row(services, message_id: int) -> OutboxMessage:
    with services.database.transaction(write=False) as db:
        row = db.get(OutboxMessage, message_id)
        assert row is not None
        return row


def test_a_mail_goes_out_after_the_commit_as_a_file_only_the_operator_reads(services):
    to = _address()
    with services.database.transaction() as db:
        message_id = services.outbox.queue(
            db, kind="test", recipient=to, subject="Hello", body="secret dpi_x", organization_id=None
        )
        db.flush()
        # Not before the commit: the call could still roll back.
        assert mails_to(services.settings.resolved_data_dir, to) == []
    [mail] = mails_to(services.settings.resolved_data_dir, to)
    assert mail["Subject"] == "Hello" and "secret dpi_x" in body_of(mail)
    path = services.settings.outbox_dir / f"{message_id}.eml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    row = _row(services, message_id)
    # Delivered: the body (which may hold a token) is no longer kept in the database.
    assert (row.status, row.transport, row.body, row.attempts) == ("sent", "file", None, 1)


def test_a_rolled_back_call_sends_nothing(services):
    to = _address()
    with pytest.raises(RuntimeError), services.database.transaction() as db:
        services.outbox.queue(db, kind="test", recipient=to, subject="Never", body="never", organization_id=None)
        raise RuntimeError("the call fails after queuing its mail")
    assert mails_to(services.settings.resolved_data_dir, to) == []
    with services.database.transaction(write=False) as db:
        assert db.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.recipient == to)) == 0


@pytest.fixture
def smtp_app(settings):
    """The real app configured with SMTP_HOST pointing at a real SMTP server on loopback."""
    with smtp_server() as mailbox:
        configured = settings.model_copy(
            update={"smtp_host": mailbox.host, "smtp_port": mailbox.port, "smtp_starttls": False}
        )
        services = build_services(configured)
        try:
            with TestClient(create_app(services=services)) as client:
                yield services, Rpc(client), mailbox
        finally:
            services.close()


def test_an_invitation_goes_through_smtp_and_only_there(smtp_app):
    services, rpc, mailbox = smtp_app
    owner_id, email, password = make_user(services)
    org = new_organization(services, owner_id)
    admin = rpc.as_(sign_in(rpc, email, password), org["firstClientId"])
    invitee = _address()
    answer = admin.mutation("organizations.inviteMember", {"email": invitee, "role": "analyst"})
    assert answer.status == 200 and "inviteToken" not in answer.data and "dpi_" not in str(answer.body)
    [mail] = mailbox.messages_to(invitee)
    assert mail["To"] == invitee and "invitation" in mail["Subject"].lower()
    token = invite_token_from(body_of(mail))
    assert mails_to(services.settings.resolved_data_dir, invitee) == []  # SMTP configured: no file
    accepted = rpc.mutation("auth.acceptInvite", {"token": token, "password": "a long enough password"})
    assert accepted.data == {"ok": True}


def invite_token_from(body: str) -> str:
    from tests.support.outbox import TOKEN

    match = TOKEN.search(body)
    assert match
    return match.group(0)


def test_a_failed_delivery_stays_queued_and_the_job_delivers_it_later(smtp_app):
    services, _rpc, mailbox = smtp_app
    to = _address()
    mailbox.refuse = True
    with services.database.transaction() as db:
        message_id = services.outbox.queue(
            db, kind="test", recipient=to, subject="Retry", body="retry me", organization_id=None
        )
    row = _row(services, message_id)
    # The call committed; the relay refused: nothing lost, the body kept for the retry.
    assert (row.status, row.last_error, row.body) == ("pending", "SMTPSenderRefused", "retry me")
    worker = Worker(services.database, kinds=[DELIVER_JOB_KIND], settings=services.settings, retry_base_seconds=0)
    _due_now(services, message_id)
    assert worker.run_once()  # the relay still refuses: the job fails and is queued again
    assert _row(services, message_id).status == "pending" and mailbox.messages_to(to) == []
    mailbox.refuse = False
    _due_now(services, message_id)
    assert worker.run_once()
    assert [m["Subject"] for m in mailbox.messages_to(to)] == ["Retry"]
    row = _row(services, message_id)
    assert (row.status, row.transport, row.body, row.attempts) == ("sent", "smtp", None, 3)
    # Once sent, a delivery attempt (another worker's, a late job) sends nothing again.
    assert Outbox(services.settings, services.database).deliver(message_id).value == "already_sent"
    assert len(mailbox.messages_to(to)) == 1


def _due_now(services, message_id: int) -> None:
    """The retry job waits a minute (the after-commit delivery normally wins); make it due now, and first
    in line (other tests' retry jobs share this database)."""
    with services.database.transaction() as db:
        db.execute(
            update(Job)
            .where(Job.kind == DELIVER_JOB_KIND, Job.payload["message_id"].as_integer() == message_id)
            .values(run_after=utcnow() - timedelta(days=3650))
        )


def test_the_invitation_mail_names_how_to_accept(services, make_member):
    admin = make_member()
    invitee = _address()
    admin.rpc.mutation("organizations.inviteMember", {"email": invitee, "role": "manager"}).data
    body = body_of(mails_to(services.settings.resolved_data_dir, invitee)[-1])
    assert "as manager for every client" in body
    assert "auth.acceptInvite" in body and "organizations.acceptInvite" in body
    assert invite_token(services.settings.resolved_data_dir, invitee) in body
