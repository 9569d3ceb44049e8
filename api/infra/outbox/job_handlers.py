"""The `outbox.deliver` job: the durable retry of one mail, queued with it in the caller's transaction.

Normally the after-commit delivery has sent the mail before the job runs, and the job only sees
`sent`. Otherwise it delivers; while another deliverer holds the row, or the transport fails, it
fails so the queue retries it with backoff.
"""

from __future__ import annotations

from typing import Any

from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import JobError, PermanentJobError
from api.infra.outbox.service import DELIVER_JOB_KIND, Delivery, DeliveryFailed, Outbox


@register_handler(DELIVER_JOB_KIND)
def deliver_job(ctx: JobContext) -> dict[str, Any]:
    """Deliver `payload.message_id` unless it was delivered already."""
    if ctx.settings is None:
        raise PermanentJobError("outbox.deliver needs the API's settings: run it under the API worker")
    message_id = ctx.payload.get("message_id")
    if not isinstance(message_id, int):
        raise PermanentJobError("outbox.deliver: payload 'message_id' must be an integer")
    try:
        outcome = Outbox(ctx.settings, ctx.database).deliver(message_id)
    except DeliveryFailed as exc:
        raise JobError(str(exc)) from None
    if outcome is Delivery.BUSY:
        raise JobError(f"outbox message {message_id} is being delivered by another worker; checking again later")
    return {"message_id": message_id, "outcome": outcome.value}
