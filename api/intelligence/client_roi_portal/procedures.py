"""clientRoiPortal.*: what a hospital client sees of its own results and ROI (fct_kpis_monthly,
fct_roi_monthly), and the same month by month as a CSV export."""

from __future__ import annotations

import csv
import io

from api.infra.marts.inputs import month_label
from api.infra.marts.serving import open_marts, rate, snapshot_of
from api.intelligence.client_roi_portal.schemas import ExportIn, ExportOut, ExportRow, PortalIn, PortalSummaryOut
from api.intelligence.roi_scorecard import queries
from api.rpc.context import Context
from api.rpc.procedure import rpc

_MARTS = ("fct_kpis_monthly", "fct_roi_monthly")


@rpc.query("clientRoiPortal.summary")
def summary(ctx: Context, input: PortalIn) -> PortalSummaryOut:
    """The client's volume, denial and overturn rates and the ROI of the denial work over the months."""
    where, params = input.month_params("month")
    with open_marts(ctx, *_MARTS) as m:
        roi = queries.totals(m, input)
        k = m.one(
            f"""select coalesce(sum(claims_adjudicated), 0) as n, sum(billed_amount) as billed,
                             sum(paid_amount) as paid, coalesce(sum(initially_denied_claims), 0) as denied,
                             coalesce(sum(overturned_claims), 0) as overturned
                      from fct_kpis_monthly where {where}""",
            params,
        )
        snap = snapshot_of(m)
    n, denied, overturned = int(k["n"]), int(k["denied"]), int(k["overturned"])
    return PortalSummaryOut(
        snapshot=snap,
        from_month=input.from_month,
        to_month=input.to_month,
        roi=roi,
        claims_adjudicated=n,
        billed_amount=k["billed"],
        paid_amount=k["paid"],
        initially_denied_claims=denied,
        initial_denial_rate=rate(denied, n),
        overturned_claims=overturned,
        overturn_rate=rate(overturned, denied),
    )


@rpc.query("clientRoiPortal.export")
def export(ctx: Context, input: ExportIn) -> ExportOut:
    """Month-by-month results and ROI of the client, as CSV text (format=csv, money with two decimals)
    or as rows (format=rows)."""
    where, params = input.month_params("month")
    with open_marts(ctx, *_MARTS) as m:
        kpis = {
            month_label(r["month"]): r
            for r in m.rows(
                f"""
            select month, claims_adjudicated, billed_amount, paid_amount, initially_denied_claims, overturned_claims
            from fct_kpis_monthly where {where}""",
                params,
            )
        }
        roi = {r["month"]: r for r in queries.monthly(m, input)}
        snap = snapshot_of(m)
    rows = []
    for month in sorted(set(kpis) | set(roi)):
        k = kpis.get(month, {})
        r = roi.get(month) or queries.figures({})
        n, denied = int(k.get("claims_adjudicated") or 0), int(k.get("initially_denied_claims") or 0)
        rows.append(
            ExportRow(
                month=month,
                claims_adjudicated=n,
                billed_amount=k.get("billed_amount"),
                paid_amount=k.get("paid_amount"),
                initially_denied_claims=denied,
                initial_denial_rate=rate(denied, n),
                overturned_claims=int(k.get("overturned_claims") or 0),
                recovered_amount=r["recovered_amount"],
                cost_of_work=r["cost_of_work"],
                net_benefit=r["net_benefit"],
                roi=r["roi"],
            )
        )
    columns = list(ExportRow.model_fields)
    span = f"{input.from_month or 'start'}_{input.to_month or 'end'}"
    out = ExportOut(
        snapshot=snap, format=input.format, filename=f"roi_client_{ctx.client_id}_{span}.csv", columns=columns
    )
    if input.format == "rows":
        out.rows = rows
        return out
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        data = row.model_dump(mode="json")
        writer.writerow(["" if data[c] is None else data[c] for c in columns])
    out.csv = buffer.getvalue()
    return out
