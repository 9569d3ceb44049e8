"""payerChangeRadar.*: payers behaving outside their usual range (fct_payer_change_alerts: a CARC's
denial rate or the days to pay above baseline mean + 3 sigma), and acknowledging them."""

from __future__ import annotations

from sqlalchemy import select

from api.core.errors import Conflict, NotFound
from api.infra.marts.inputs import month_label, page_rows
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.payer_change_radar.models import AlertAcknowledgement
from api.intelligence.payer_change_radar.schemas import AcknowledgeIn, AcknowledgementOut, AlertsIn, AlertsOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MART = "fct_payer_change_alerts"


@rpc.query("payerChangeRadar.alerts")
def alerts(ctx: Context, input: AlertsIn) -> AlertsOut:
    """Detected shifts, strongest first (z-score), each with its baseline, threshold and whether someone
    of this client acknowledged it; filter by months, payer, metric; paginated."""
    acknowledged = {a.alert_key: a for a in ctx.db.scalars(select(AlertAcknowledgement))}
    where, params = input.month_params("adjudication_month")
    if input.payer:
        where += " and upper(payer_key) = $payer"
        params["payer"] = input.payer
    if input.metric:
        where += " and metric = $metric"
        params["metric"] = input.metric
    if not input.include_acknowledged and acknowledged:
        where += " and not list_contains($acknowledged, alert_key)"
        params["acknowledged"] = list(acknowledged)
    with open_marts(ctx, _MART) as m:
        rows, cursor = page_rows(
            m,
            f"select * from {_MART} where {where} order by z_score desc, adjudication_month desc, alert_key",
            params,
            input,
        )
        snap = snapshot_of(m)
    items = []
    for r in rows:
        ack = acknowledged.get(r["alert_key"])
        items.append(
            {
                **r,
                "month": month_label(r["adjudication_month"]),
                "value": r["metric_value"],
                "acknowledged": ack is not None,
                "acknowledged_at": ack.created_at if ack else None,
                "acknowledged_by": ack.acknowledged_by if ack else None,
            }
        )
    return AlertsOut(snapshot=snap, items=items, next_cursor=cursor)


@rpc.mutation("payerChangeRadar.acknowledge")
def acknowledge(ctx: Context, input: AcknowledgeIn) -> AcknowledgementOut:
    """Acknowledge an alert of the current snapshot (by its alertKey) with an optional note.
    An alert is acknowledged once per client: a second acknowledgement is a CONFLICT."""
    with open_marts(ctx, _MART) as m:
        found = m.one(f"select alert_key from {_MART} where alert_key = $key", {"key": input.alert_key})
    if found is None:
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
