"""Sending outbound messages through a transport and reading them back. Never commits; never logs
or puts the subject or body in a message."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import PreconditionFailed
from api.core.lifecycle import transition
from api.denials.cases import service as cases
from api.denials.comms import content
from api.denials.comms.lifecycle import MESSAGE
from api.denials.comms.models import OutboundMessage
from api.denials.comms.transport import OutboundRequest, Transport, TransportResult, transport_for
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given

CASE_EVENT_KIND = "message_sent"
_STAMPS = {"sent": "sent_at", "delivered": "delivered_at", "failed": "failed_at"}


def get(db: Session, message_id: int) -> OutboundMessage:
    return get_by_id(db, OutboundMessage, message_id, "Message")


def _move(row: OutboundMessage, target: str, detail: str, at: datetime) -> None:
    row.status = transition(MESSAGE, row.status, target)
    row.status_history = [*row.status_history, {"status": target, "at": at.isoformat(), "detail": detail}]
    if target in _STAMPS:
        setattr(row, _STAMPS[target], at)
    if target == "failed":
        row.failure_reason = detail[:200]


def _apply(row: OutboundMessage, result: TransportResult) -> None:
    row.transport_reference = result.reference
    row.transport_response = result.response
    for report in result.reports:
        _move(row, report.status, report.detail, utcnow())


def send(
    db: Session,
    *,
    case_id: int,
    channel: str,
    recipient: str,
    subject: str,
    body: str,
    transport_name: str,
    user_id: int,
) -> OutboundMessage:
    """Record the message as queued, hand it to the transport and record what it reports. A transport
    that is not configured is PRECONDITION_FAILED before anything is stored."""
    transport: Transport = transport_for(transport_name)
    case = cases.get_case(db, case_id)
    if case.state == "closed":
        raise PreconditionFailed("The case is 'closed'; reopen it before sending a message on it")
    to = content.normalise_recipient(channel, recipient)
    rendered = content.render(channel, to, subject, body)
    digest = content.content_digest(rendered)
    now = utcnow()
    row = OutboundMessage(
        case_id=case.id,
        channel=channel,
        transport=transport.name,
        recipient=to,
        subject=subject,
        body=body,
        content_digest=digest,
        content_bytes=len(rendered),
        status="queued",
        status_history=[{"status": "queued", "at": now.isoformat(), "detail": "recorded"}],
        sent_by_user_id=user_id,
    )
    db.add(row)
    db.flush()
    request = OutboundRequest(message_id=row.id, channel=channel, recipient=to, content=rendered, content_digest=digest)
    row.transport_request = request.recorded(transport.name)
    _apply(row, transport.submit(request))
    cases.add_event(
        db,
        case,
        CASE_EVENT_KIND,
        actor_user_id=user_id,
        details={"messageId": row.id, "channel": channel, "status": row.status, "contentDigest": digest},
    )
    db.flush()
    return row


def audit_view(row: OutboundMessage) -> dict[str, Any]:
    """What the audit log may digest about a message: the content digest, never the text."""
    return {
        "case_id": row.case_id,
        "channel": row.channel,
        "transport": row.transport,
        "status": row.status,
        "content_digest": row.content_digest,
    }


def list_statement(case_id: int | None, channel: str | None, status: str | None) -> Select[Any]:
    return where_given(
        select(OutboundMessage),
        (OutboundMessage.case_id, case_id),
        (OutboundMessage.channel, channel),
        (OutboundMessage.status, status),
    )
