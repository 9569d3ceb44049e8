"""revenueOperations.*: the recovery team's throughput and backlog by specialist and ISO week, from the
operational database (denial cases, their assignments and moves, the recorded appeal decisions), counted on
the client's calendar."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from api.intelligence.revenue_operations import service, weekly
from api.intelligence.revenue_operations.schemas import (
    BacklogOut,
    BacklogWeek,
    OwnerBacklog,
    SpecialistWeek,
    ThroughputOut,
    WeekRangeIn,
    WeekTotal,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueOperations")


def _week(monday: date) -> dict[str, Any]:
    return {"week": weekly.iso_week(monday), "week_start": monday, "week_end": monday + timedelta(days=6)}


def _total(monday: date, figures: list[weekly.WeekFigures]) -> WeekTotal:
    merged = weekly.WeekFigures(days_open=[d for f in figures for d in f.days_open])
    return WeekTotal(
        **_week(monday),
        cases_closed=sum(f.closed for f in figures),
        outcomes_won=sum(f.won for f in figures),
        outcomes_lost=sum(f.lost for f in figures),
        recovered_amount=sum((f.recovered for f in figures), Decimal("0.00")),
        median_days_open=merged.median_days_open,
    )


@router.query("throughput")
def throughput(ctx: Context, input: WeekRangeIn) -> ThroughputOut:
    """Per ISO week and specialist (the case's owner when it happened; null: unassigned): cases closed
    (decided or closed), appeal decisions recorded (won or partially won / lost) and what they recovered, and
    the median days the closed cases were open; plus the team's totals per week. At most 104 weeks."""
    team = service.team_weeks(ctx.db, from_date=input.from_date, to_date=input.to_date)
    items = [
        SpecialistWeek(
            **_week(monday),
            user_id=owner,
            display_name=None if owner is None else team.names.get(owner),
            cases_closed=f.closed,
            outcomes_won=f.won,
            outcomes_lost=f.lost,
            recovered_amount=f.recovered,
            median_days_open=f.median_days_open,
        )
        for monday in team.weeks.mondays
        for owner, f in sorted(team.weeks.figures[monday].items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
        if f.closed or f.won or f.lost
    ]
    weeks = [_total(m, list(team.weeks.figures[m].values())) for m in team.weeks.mondays]
    first, last = team.weeks.mondays[0], team.weeks.mondays[-1]
    return ThroughputOut(
        time_zone=team.zone.key,
        first_week=weekly.iso_week(first),
        last_week=weekly.iso_week(last),
        items=items,
        weeks=weeks,
    )


def _owner(owner: int | None, f: weekly.WeekFigures, names: dict[int, str]) -> OwnerBacklog:
    return OwnerBacklog(
        user_id=owner,
        display_name=None if owner is None else names.get(owner),
        open_cases=f.backlog,
        opened=f.opened,
        reopened=f.reopened,
        closed=f.closed,
        moved_in=f.moved_in,
        moved_out=f.moved_out,
    )


@router.query("backlog")
def backlog(ctx: Context, input: WeekRangeIn) -> BacklogOut:
    """Open cases (in work: open, triaged, in_appeal, awaiting_payer) at each ISO week's end per specialist,
    the owner then read from the assignment history, plus the unassigned ones and the total, with what moved
    each owner's count in the week: opened, reopened, closed, reassigned in and out (an owner's count is the
    previous week's plus those). At most 104 weeks."""
    team = service.team_weeks(ctx.db, from_date=input.from_date, to_date=input.to_date)
    out = []
    for monday in team.weeks.mondays:
        figures = team.weeks.figures[monday]
        specialists = [
            _owner(owner, f, team.names)
            for owner, f in sorted(figures.items(), key=lambda kv: kv[0] or 0)
            if owner is not None and (f.backlog or f.active)
        ]
        unassigned = _owner(None, figures.get(None, weekly.WeekFigures()), team.names)
        out.append(
            BacklogWeek(
                **_week(monday), specialists=specialists, unassigned=unassigned, total=team.weeks.total_backlog(monday)
            )
        )
    return BacklogOut(time_zone=team.zone.key, starting_total=sum(team.weeks.starting_backlog.values()), weeks=out)
