"""The transactional outbox: a mail is a row written in the caller's transaction, delivered after it commits.

    queue (in the call's transaction)            the row exists only if the call commits, together
      |                                          with an `outbox.deliver` job a minute later
      '-- after commit: deliver now -----------> pending --claim--> sending --sent--> sent (body cleared)
                                                                       '--failed--> pending (the job retries)

Never lost: the row and its retry job commit with the call, so a crash before delivery leaves both
behind. Never sent for a rolled-back call: nothing is delivered before the commit (the after-commit
hook), and a rolled-back row does not exist. Delivery is at least once (a process that dies between
sending and recording it sends again after the claim goes stale); two deliverers never send at the
same time, because each first claims the row with a conditional UPDATE.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from enum import Enum
from typing import Any, Protocol, cast

from sqlalchemy import CursorResult, and_, event, or_, update
from sqlalchemy.orm import Session

from api.core.errors import Unavailable
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.infra.db.session import Database
from api.infra.jobs.queue import enqueue
from api.infra.outbox.models import OutboxMessage
from api.infra.outbox.transport import FileTransport, Mail, SmtpTransport, Transport, compose

log = logging.getLogger("api.outbox")

DELIVER_JOB_KIND = "outbox.deliver"
# The retry job waits this long, so the after-commit delivery normally finishes first.
RETRY_AFTER = timedelta(minutes=1)
RETRY_ATTEMPTS = 12  # with the queue's exponential backoff: retried for about five hours
# A claim older than this belongs to a deliverer that died; the row may be claimed again.
STALE_CLAIM = timedelta(minutes=10)
_PENDING = "outbox_pending_ids"
_HOOKED = "outbox_hooked"


class Delivery(Enum):
    SENT = "sent"  # delivered by this call
    ALREADY_SENT = "already_sent"
    BUSY = "busy"  # another deliverer holds a fresh claim
    MISSING = "missing"  # no such row (its transaction rolled back)


class DeliveryFailed(Exception):
    """The transport refused or could not be reached; the row is pending again. The message names the
    exception type only (an SMTP error can echo the recipient)."""


def transport_for(settings: Settings) -> Transport:
    """SMTP when SMTP_HOST is set, else the embedded default's mail files under DATA_DIR/outbox."""
    if settings.smtp_host:
        return SmtpTransport(
            settings.smtp_host,
            settings.smtp_port,
            starttls=settings.smtp_starttls,
            username=settings.smtp_username,
            password=settings.smtp_password,
            timeout=settings.smtp_timeout_seconds,
        )
    return FileTransport(settings.outbox_dir)


class Outbox:
    """Queues mails in a caller's transaction and delivers them once it has committed."""

    def __init__(self, settings: Settings, database: Database, transport: Transport | None = None) -> None:
        self.sender = settings.mail_from
        self.database = database
        self.transport = transport or transport_for(settings)

    def queue(
        self, db: Session, *, kind: str, recipient: str, subject: str, body: str, organization_id: int | None
    ) -> int:
        """Write the mail in `db`'s transaction (with its retry job); it is delivered after the commit."""
        row = OutboxMessage(kind=kind, recipient=recipient, subject=subject, body=body, organization_id=organization_id)
        db.add(row)
        db.flush()
        enqueue(
            db,
            DELIVER_JOB_KIND,
            {"message_id": row.id},
            organization_id=organization_id,
            run_after=utcnow() + RETRY_AFTER,
            max_attempts=RETRY_ATTEMPTS,
        )
        self._hook(db)
        db.info.setdefault(_PENDING, []).append(row.id)
        return row.id

    def _hook(self, db: Session) -> None:
        if db.info.get(_HOOKED):
            return
        db.info[_HOOKED] = True
        event.listen(db, "after_commit", self._after_commit)
        # A rolled-back call's ids are forgotten: those rows never existed.
        event.listen(db, "after_rollback", lambda s: s.info.pop(_PENDING, None))

    def _after_commit(self, session: Session) -> None:
        for message_id in session.info.pop(_PENDING, []):
            # The call already happened: a delivery failure must not fail it (the retry job delivers).
            try:
                self.deliver(message_id)
            except Exception as exc:  # noqa: BLE001 - logged by type only, retried by the job
                log.warning(
                    "outbox message %s not delivered yet (%s); the retry job will", message_id, type(exc).__name__
                )

    def deliver(self, message_id: int) -> Delivery:
        """Claim, send and record one message; DeliveryFailed when the transport fails."""
        claimed_at = utcnow()
        with self.database.transaction() as db:
            claimed = cast(
                CursorResult[Any],
                db.execute(
                    update(OutboxMessage)
                    .where(
                        OutboxMessage.id == message_id,
                        or_(
                            OutboxMessage.status == "pending",
                            and_(
                                OutboxMessage.status == "sending", OutboxMessage.claimed_at < claimed_at - STALE_CLAIM
                            ),
                        ),
                    )
                    .values(status="sending", claimed_at=claimed_at, attempts=OutboxMessage.attempts + 1)
                    .execution_options(synchronize_session=False)
                ),
            )
            row = db.get(OutboxMessage, message_id)
            if claimed.rowcount != 1 or row is None:
                return _why_not(row)
            mail = Mail(row.id, row.recipient, row.subject, row.body or "", row.created_at)
            claim = row.attempts  # our claim: a later claim of a stale row counts another attempt
        try:
            self.transport.send(mail.message_id, compose(mail, self.sender))
        except Exception as exc:  # noqa: BLE001 - any transport failure: pending again, retried
            self._record(message_id, claim, status="pending", last_error=type(exc).__name__)
            raise DeliveryFailed(f"delivery of outbox message {message_id} failed ({type(exc).__name__})") from None
        done = {"sent_at": utcnow(), "transport": self.transport.name, "body": None, "last_error": None}
        self._record(message_id, claim, status="sent", **done)
        return Delivery.SENT

    def _record(self, message_id: int, claim: int, **values: Any) -> None:
        """The outcome of our claim (only while the claim is still ours)."""
        with self.database.transaction() as db:
            db.execute(
                update(OutboxMessage)
                .where(
                    OutboxMessage.id == message_id,
                    OutboxMessage.status == "sending",
                    OutboxMessage.attempts == claim,
                )
                .values(**values)
                .execution_options(synchronize_session=False)
            )


def _why_not(row: OutboxMessage | None) -> Delivery:
    if row is None:
        return Delivery.MISSING
    return Delivery.ALREADY_SENT if row.status == "sent" else Delivery.BUSY


class MailingServices(Protocol):
    """The services' outbox, named by shape: the services container imports this package."""

    @property
    def outbox(self) -> Outbox | None: ...


def outbox_of(services: MailingServices) -> Outbox:
    """The services' outbox; UNAVAILABLE on a server built without one (nothing can be mailed)."""
    if services.outbox is None:
        raise Unavailable("Mail delivery is not configured on this server, so no invitation can be sent")
    return services.outbox
