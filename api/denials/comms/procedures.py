"""comms.*: outbound letters, faxes and portal messages on denial cases."""

from __future__ import annotations

from api.denials.comms import service
from api.denials.comms.models import OutboundMessage
from api.denials.comms.schemas import ListMessagesIn, MessageOut, MessageRef, MessageSummaryOut, SendIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("comms")


@router.mutation("send")
def send(ctx: Context, input: SendIn) -> MessageOut:
    """Send a letter, fax or portal message on a case through the sandbox transport (the only one
    configured; `transport: "live"` is PRECONDITION_FAILED): recorded queued, then sent and delivered
    or failed as the transport reports. The SHA-256 of the rendered content is recorded; the audit log
    gets that digest, never the body. A closed case is PRECONDITION_FAILED."""
    row = service.send(
        ctx.db,
        case_id=input.case_id,
        channel=input.channel,
        recipient=input.recipient,
        subject=input.subject,
        body=input.body,
        transport_name=input.transport,
        user_id=ctx.user_id,
    )
    ctx.note("comms_message", row.id, after=service.audit_view(row))
    return MessageOut.model_validate(row)


@router.query("list")
def list_messages(ctx: Context, input: ListMessagesIn) -> Page[MessageSummaryOut]:
    """Messages of the selected client, newest first, without their bodies; filter by case, channel
    and status."""
    stmt = service.list_statement(input.case_id, input.channel, input.status)
    return paginate(ctx.db, stmt, OutboundMessage.id, input, MessageSummaryOut.model_validate)


@router.query("get")
def get(ctx: Context, input: MessageRef) -> MessageOut:
    """One message with its body, status history and the transport's recorded request and response."""
    return MessageOut.model_validate(service.get(ctx.db, input.id))
