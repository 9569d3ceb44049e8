"""payerChangeRadar.*: payers behaving outside their usual range (a CARC's denial rate or the days to
pay significantly above the payer's own baseline, after a Benjamini-Hochberg correction across every
cell of that metric tested for the tenant), and acknowledging them."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import Conflict, NotFound
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.payer_change_radar import queries
from api.intelligence.payer_change_radar.models import AlertAcknowledgement
from api.intelligence.payer_change_radar.schemas import AcknowledgeIn, AcknowledgementOut, AlertsIn, AlertsOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("payerChangeRadar")


@router.query("alerts")
def alerts(ctx: Context, input: AlertsIn) -> AlertsOut:
    """Detected shifts, strongest (smallest p-value) first, each with its counts, baseline, p-value,
    q-value (Benjamini-Hochberg over every cell of the same metric tested for this client), the false discovery rate and
    minimum denial count applied, and whether someone of this client acknowledged it; filter by
    months, payer, metric (the filters never change which cells are alerts); paginated."""
    acknowledged = {a.alert_key: a for a in ctx.db.scalars(select(AlertAcknowledgement))}
    with open_marts(ctx, queries.ALERT_MART) as m:
        items, cursor = queries.alerts(m, input, acknowledged)
        snap = snapshot_of(m)
    return AlertsOut(snapshot=snap, items=items, next_cursor=cursor)


@router.mutation("acknowledge")
def acknowledge(ctx: Context, input: AcknowledgeIn) -> AcknowledgementOut:
    """Acknowledge an alert of the current snapshot (by its alertKey) with an optional note.
    An alert is acknowledged once per client: a second acknowledgement is a CONFLICT."""
    with open_marts(ctx, queries.ALERT_MART) as m:
        found = queries.alert_exists(m, input.alert_key)
    if not found:
        raise NotFound(
            "Alert was not found in this client's current snapshot; list alerts with payerChangeRadar.alerts",
        )
    if ctx.db.scalar(select(AlertAcknowledgement.id).where(AlertAcknowledgement.alert_key == input.alert_key)):
        raise Conflict("This alert is already acknowledged")
    ack = AlertAcknowledgement(alert_key=input.alert_key, acknowledged_by=ctx.user_id, note=input.note)
    ctx.db.add(ack)
    ctx.db.flush()
    ctx.note("payer_alert_acknowledgement", ack.id, after={"alert_key": input.alert_key, "note": input.note})
    return AcknowledgementOut.model_validate(ack)
