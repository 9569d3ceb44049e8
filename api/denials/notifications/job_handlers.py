"""The `notifications.deadlines` job: the daily deadline sweep over every tenant.

It notifies the owners of open cases whose appeal deadline is within the horizon (idempotent, so a
retried or repeated run creates nothing twice), then queues the next day's run. The payload may
pin `today` (ISO date) for a backfill; otherwise each client's today in its own time zone when the job
runs (clients.time_zone, else DEFAULT_TIME_ZONE).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from api.denials.notifications import rules, service
from api.infra.db.base import utcnow
from api.infra.jobs.handlers import JobContext, register_handler
from api.infra.jobs.queue import PermanentJobError


@register_handler(service.DEADLINES_JOB_KIND)
def notify_deadlines_job(ctx: JobContext) -> dict[str, Any]:
    """Run `notify_deadlines` for `payload.today` (default: each client's today) and `payload.horizonDays`."""
    try:
        horizon = int(ctx.payload.get("horizonDays", service.DEFAULT_HORIZON_DAYS))
        today = date.fromisoformat(ctx.payload["today"]) if ctx.payload.get("today") else None
    except (TypeError, ValueError):
        raise PermanentJobError(
            "notifications.deadlines: payload needs an ISO 'today' and an integer 'horizonDays'"
        ) from None
    if not 0 <= horizon <= rules.MAX_HORIZON_DAYS:
        raise PermanentJobError(f"notifications.deadlines: horizonDays must be 0-{rules.MAX_HORIZON_DAYS}")
    with ctx.database.transaction() as db:
        now = utcnow()
        created = service.notify_deadlines(db, today, horizon, now)
        # Only the recurring run (no pinned day) keeps the chain going; a backfill is one-off.
        if not ctx.payload.get("today"):
            service.schedule_deadline_run(db, now, horizon)
    # No pinned day: each client's own today (None here, the clients' zones differ)
    return {"today": today.isoformat() if today is not None else None, "horizonDays": horizon, "created": created}
