"""clientRoiPortal.*: what a hospital client sees of its own results and ROI (fct_kpis_monthly,
fct_roi_monthly), and the same month by month as a CSV export."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.client_roi_portal import queries, service
from api.intelligence.client_roi_portal.schemas import ExportIn, ExportOut, ExportRow, PortalIn, PortalSummaryOut
from api.intelligence.roi_scorecard.queries import totals
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("clientRoiPortal")

COLUMNS = list(ExportRow.model_fields)


@router.query("summary")
def summary(ctx: Context, input: PortalIn) -> PortalSummaryOut:
    """The client's volume, denial and overturn rates and the ROI of the denial work over the months."""
    with open_marts(ctx, *queries.PORTAL_MARTS) as m:
        roi = totals(m, input)
        kpis = queries.kpis(m, input)
        snap = snapshot_of(m)
    return PortalSummaryOut(
        snapshot=snap, from_month=input.from_month, to_month=input.to_month, roi=roi, **kpis.model_dump()
    )


@router.query("export")
def export(ctx: Context, input: ExportIn) -> ExportOut:
    """Month-by-month results and ROI of the client, as CSV text (format=csv, money with two decimals)
    or as rows (format=rows)."""
    with open_marts(ctx, *queries.PORTAL_MARTS) as m:
        rows = queries.export_rows(m, input)
        snap = snapshot_of(m)
    span = f"{input.from_month or 'start'}_{input.to_month or 'end'}"
    return ExportOut(
        snapshot=snap,
        format=input.format,
        filename=f"roi_client_{ctx.client_id}_{span}.csv",
        columns=COLUMNS,
        rows=rows if input.format == "rows" else None,
        csv=service.export_csv(COLUMNS, (r.model_dump(mode="json") for r in rows)) if input.format == "csv" else None,
    )
