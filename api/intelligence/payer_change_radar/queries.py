"""Reads of fct_payer_change_alerts for payerChangeRadar.*.

The mart holds every cell tested for the tenant (counts and baseline); which of them are alerts is
decided here, over all of them at once: a one-sided p-value per cell (statistics.py), then
Benjamini-Hochberg across every cell of the tenant's snapshot (one family per metric), so that
filtering a request by month or payer never changes which cells are alerts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from api.infra.marts.inputs import month_label, page_rows, payer_filter
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.payer_change_radar import statistics
from api.intelligence.payer_change_radar.models import AlertAcknowledgement
from api.intelligence.payer_change_radar.schemas import Alert, AlertsIn

ALERT_MART = "fct_payer_change_alerts"
# The false discovery rate: among the cells reported, at most this share is expected to be noise.
ALERT_FDR = 0.05


@dataclass(frozen=True)
class Judged:
    """One tested cell's p-value and Benjamini-Hochberg q-value."""

    p_value: float
    q_value: float

    @property
    def alert(self) -> bool:
        return self.q_value <= ALERT_FDR


def cell_p_value(row: Mapping[str, Any]) -> float | None:
    """The one-sided p-value of one mart row (None when the cell cannot be tested)."""
    if row["metric"] == "carc_denial_rate":
        return statistics.rate_increase_p_value(
            int(row["denied_claims"]),
            int(row["sample_size"]),
            int(row["baseline_denied_claims"]),
            int(row["baseline_sample_size"]),
        )
    return statistics.mean_increase_p_value(
        float(row["metric_value"]),
        float(row["baseline_mean"]),
        None if row["baseline_stddev"] is None else float(row["baseline_stddev"]),
        int(row["baseline_months"]),
    )


def judge(rows: Sequence[Mapping[str, Any]]) -> dict[str, Judged]:
    """p- and q-values of the tested cells, by alert_key.

    BH runs once per metric over all of that metric's cells in `rows` (every payer, CARC and month):
    CARC denial rates and days to pay are two families with their own false discovery rate, so the
    hundreds of CARC cells do not drown a slow payer and a reader filtering by metric gets the
    stated rate for that metric.
    """
    judged: dict[str, Judged] = {}
    for metric in sorted({row["metric"] for row in rows}):
        tested = [
            (row["alert_key"], p) for row in rows if row["metric"] == metric and (p := cell_p_value(row)) is not None
        ]
        q_values = statistics.benjamini_hochberg([p for _, p in tested])
        judged.update({key: Judged(p, q) for (key, p), q in zip(tested, q_values, strict=True)})
    return judged


def judge_snapshot(m: ScopedMarts) -> dict[str, Judged]:
    """`judge` over every cell of this tenant's snapshot."""
    return judge(
        m.rows(
            f"select alert_key, metric, sample_size, metric_value, denied_claims, baseline_denied_claims, "
            f"baseline_sample_size, baseline_mean, baseline_stddev, baseline_months from {ALERT_MART}"
        )
    )


def alerts(
    m: ScopedMarts, input: AlertsIn, acknowledged: Mapping[str, AlertAcknowledgement]
) -> tuple[list[Alert], str | None]:
    """One page of alerts, strongest (smallest p-value) first, each with this client's acknowledgement."""
    judged = judge_snapshot(m)
    ranked = sorted((j.p_value, key) for key, j in judged.items() if j.alert)
    where, params = input.month_params("adjudication_month")
    if ranked:
        where += " and list_contains($alerts, alert_key)"
        params["alerts"] = [key for _, key in ranked]
    else:
        where += " and false"
    where = payer_filter(where, params, input.payer)
    if input.metric:
        where += " and metric = $metric"
        params["metric"] = input.metric
    if not input.include_acknowledged and acknowledged:
        where += " and not list_contains($acknowledged, alert_key)"
        params["acknowledged"] = list(acknowledged)
    order = "list_position($alerts, alert_key)" if ranked else "alert_key"
    rows, cursor = page_rows(m, f"select * from {ALERT_MART} where {where} order by {order}", params, input)
    return [_alert(r, judged[r["alert_key"]], acknowledged.get(r["alert_key"])) for r in rows], cursor


def _alert(row: dict[str, Any], judged: Judged, ack: AlertAcknowledgement | None) -> Alert:
    return Alert.model_validate(
        {
            **row,
            "month": month_label(row["adjudication_month"]),
            "value": row["metric_value"],
            "p_value": judged.p_value,
            "q_value": judged.q_value,
            "false_discovery_rate": ALERT_FDR,
            "acknowledged": ack is not None,
            "acknowledged_at": ack.created_at if ack else None,
            "acknowledged_by": ack.acknowledged_by if ack else None,
        }
    )


def alert_exists(m: ScopedMarts, alert_key: str) -> bool:
    """Whether the client's current snapshot has the alert (a tested cell that passed the correction)."""
    judged = judge_snapshot(m).get(alert_key)
    return judged is not None and judged.alert
