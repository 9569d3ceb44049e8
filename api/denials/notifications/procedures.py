"""notifications.*: the caller's own in-app notifications and what they subscribe to.

Every procedure acts on the caller's own inbox only, so any member (auditors included) may read
and mark their notifications and choose their subscriptions (permission `read`).
"""

from __future__ import annotations

from api.denials.notifications import service
from api.denials.notifications.models import Notification
from api.denials.notifications.schemas import (
    ListNotificationsIn,
    MarkReadIn,
    MarkReadOut,
    NotificationOut,
    NotificationPage,
    SubscribeIn,
    SubscriptionOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import paginate

router = rpc.namespace("notifications")


@router.query("list")
def list_notifications(ctx: Context, input: ListNotificationsIn) -> NotificationPage:
    """The caller's notifications in the selected client, newest first; filter unread/read and kind;
    with the caller's unread count. Nobody sees another member's notifications."""
    stmt = service.list_statement(ctx.user_id, unread=input.unread, kind=input.kind)
    page = paginate(ctx.db, stmt, Notification.id, input, NotificationOut.model_validate)
    return NotificationPage(
        items=page.items, next_cursor=page.next_cursor, unread_count=service.unread_count(ctx.db, ctx.user_id)
    )


@router.mutation("markRead", permission="read")
def mark_read(ctx: Context, input: MarkReadIn) -> MarkReadOut:
    """Mark the caller's notifications read (already read ones keep their first read time). Any id
    that is not the caller's own is NOT_FOUND and nothing is marked."""
    rows = service.mark_read(ctx.db, ctx.user_id, input.ids)
    ctx.note("notification_inbox", ctx.user_id, after={"read_ids": [r.id for r in rows]})
    return MarkReadOut(
        items=[NotificationOut.model_validate(r) for r in rows], unread_count=service.unread_count(ctx.db, ctx.user_id)
    )


@router.mutation("subscribe", permission="read")
def subscribe(ctx: Context, input: SubscribeIn) -> SubscriptionOut:
    """Turn one kind of notification on or off for the caller in the selected client (every kind is
    on until turned off)."""
    row, before = service.subscribe(ctx.db, ctx.user_id, input.kind, input.channel, input.enabled)
    ctx.note(
        "notification_subscription",
        row.id,
        before=None if before is None else {"enabled": before},
        after={"kind": row.kind, "channel": row.channel, "enabled": row.enabled},
    )
    return SubscriptionOut.model_validate(row)
