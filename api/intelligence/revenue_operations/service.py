"""The recovery team's weeks from the operational database: the case histories (cases.service) and the
recorded appeal decisions (outcomes.service) become plain events (`weekly.Event`) on the client's calendar
(deadlines.service.client_zone), which `weekly.bucket` counts by ISO week and owner; the owners are named
through organizations.service. Read only; never commits."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.denials.cases import service as cases
from api.denials.deadlines import service as deadlines
from api.denials.outcomes import service as outcomes
from api.intelligence.revenue_operations import weekly
from api.platform.organizations import service as organizations

DEFAULT_WEEKS = 12


@dataclass(frozen=True)
class TeamWeeks:
    """The bucketed weeks, the zone they are counted in and the names of the owners in them."""

    zone: ZoneInfo
    weeks: weekly.Weeks
    names: dict[int, str]


def _mondays(zone: ZoneInfo, from_date: date | None, to_date: date | None) -> tuple[date, ...]:
    last = to_date or datetime.now(UTC).astimezone(zone).date()
    first = from_date or last - timedelta(weeks=DEFAULT_WEEKS - 1)
    try:
        return weekly.mondays(first, last)
    except ValueError as exc:
        raise InvalidInput(f"Invalid input: {exc} (fromDate, toDate)") from None


def _day(at: datetime, zone: ZoneInfo) -> date:
    # stored times are UTC-aware on both databases (api.infra.db.base.UtcDateTime)
    return at.astimezone(zone).date()


def _events(db: Session, zone: ZoneInfo, until: datetime) -> list[weekly.Event]:
    events: list[weekly.Event] = []
    for h in cases.case_histories(db, opened_before=until):
        day = _day(h.opened_at, zone)
        events.append(weekly.Event(h.case_id, h.opened_at, day, "opened", 0, h.opened_owner, h.opened_working))
        for m in h.moves:
            kind, owner = ("owner", m.owner_to) if m.assignment else ("state", None)
            events.append(weekly.Event(h.case_id, m.at, _day(m.at, zone), kind, m.event_id, owner, m.working))
    for o in outcomes.recorded_outcomes(db, recorded_before=until):
        day = _day(o.recorded_at, zone)
        # after the case's own events of the same moment (the move the decision made comes first)
        events.append(
            weekly.Event(o.case_id, o.recorded_at, day, "outcome", 2**62, None, None, o.decision, o.amount_recovered)
        )
    return events


def team_weeks(db: Session, *, from_date: date | None, to_date: date | None) -> TeamWeeks:
    """Every week of the range bucketed by owner (the history before it builds the starting backlog)."""
    zone = deadlines.client_zone(db)
    mondays = _mondays(zone, from_date, to_date)
    until = datetime.combine(mondays[-1] + timedelta(days=7), time(), zone).astimezone(UTC)
    weeks = weekly.bucket(_events(db, zone, until), mondays)
    owners = {o for week in weeks.figures.values() for o in week if o is not None}
    return TeamWeeks(zone, weeks, organizations.display_names(db, owners))
