"""Reads of fct_payer_change_alerts for payerChangeRadar.*."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.infra.marts.inputs import month_label, page_rows, payer_filter
from api.infra.marts.reader import ScopedMarts
from api.intelligence.payer_change_radar.models import AlertAcknowledgement
from api.intelligence.payer_change_radar.schemas import Alert, AlertsIn

ALERT_MART = "fct_payer_change_alerts"


def alerts(
    m: ScopedMarts, input: AlertsIn, acknowledged: Mapping[str, AlertAcknowledgement]
) -> tuple[list[Alert], str | None]:
    """One page of alerts, strongest first, each with this client's acknowledgement if any."""
    where, params = input.month_params("adjudication_month")
    where = payer_filter(where, params, input.payer)
    if input.metric:
        where += " and metric = $metric"
        params["metric"] = input.metric
    if not input.include_acknowledged and acknowledged:
        where += " and not list_contains($acknowledged, alert_key)"
        params["acknowledged"] = list(acknowledged)
    rows, cursor = page_rows(
        m,
        f"select * from {ALERT_MART} where {where} order by z_score desc, adjudication_month desc, alert_key",
        params,
        input,
    )
    return [_alert(r, acknowledged.get(r["alert_key"])) for r in rows], cursor


def _alert(row: dict[str, Any], ack: AlertAcknowledgement | None) -> Alert:
    return Alert.model_validate(
        {
            **row,
            "month": month_label(row["adjudication_month"]),
            "value": row["metric_value"],
            "acknowledged": ack is not None,
            "acknowledged_at": ack.created_at if ack else None,
            "acknowledged_by": ack.acknowledged_by if ack else None,
        }
    )


def alert_exists(m: ScopedMarts, alert_key: str) -> bool:
    """Whether the client's current snapshot has the alert."""
    found = m.one_or_none(f"select alert_key from {ALERT_MART} where alert_key = $key", {"key": alert_key})
    return found is not None
