"""What a case's deadlines are computed from, read from the operational DB (payerRules' inputs).

- the claim filing indicator: the 835's CLP06 of the case's own remittance (its source batch), else
  the 837's (the claims table; SBR09 when a claim was filed or created with one);
- the payer class: the tenant's payer alias for the payer id when it sets one (``payer_aliases``), else
  the case's (CLP06's class), else the 837 filing indicator's class;
- the date of service: the through date of an institutional claim (42 CFR 424.44(b): "for institutional
  claims that include span dates of service, the 'through' date on the claim"), i.e. the 835's DTM*233
  else the 837's statement-to date, when the claim's 837 was an 837I; otherwise the case's date
  (the service line's date, else the statement's first date);
- a soft denial (``hard_or_soft`` = soft: the classifier's "fix and resubmit", e.g. CO-16 with MA130);
- the client's rules (``payer_rules``) and its time zone (``clients.time_zone``, else the settings').

Every read is one statement per kind for a list of cases (the intake schedules a whole batch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.settings import get_settings
from api.denials.cases.models import DenialCase
from api.denials.cases.payer_classes import payer_class_of
from api.denials.claims.models import Claim
from api.denials.deadlines import rules
from api.denials.deadlines.models import PayerRule
from api.infra.db.tenant_filter import get_scope
from api.money.ingestion import service as ingestion
from api.money.reconciliation import service as reconciliation
from api.platform.organizations import service as organizations

CHUNK = 500
INSTITUTIONAL = "837I"


def zone_of(name: str | None) -> ZoneInfo:
    """The client's zone, else the platform default (Settings.default_time_zone, validated at start)."""
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass  # a stored name this system no longer knows: the default, never a failed schedule
    return ZoneInfo(get_settings().default_time_zone)


def client_zone(db: Session) -> ZoneInfo:
    """The session client's time zone (its stored zone, else the platform default)."""
    scope = get_scope(db)
    name = None
    if scope is not None and scope.client_id is not None:
        name = organizations.client_time_zone(db, scope.client_id)
    return zone_of(name)


def client_today(db: Session, now: datetime | None = None) -> date:
    """Today in the session client's time zone (a deadline is a date where the hospital is)."""
    return (now or datetime.now(UTC)).astimezone(client_zone(db)).date()


def client_todays(db: Session, now: datetime | None = None) -> dict[int, date]:
    """Every client's today in its own zone (a sweep over all tenants; a session uses client_today)."""
    moment = now or datetime.now(UTC)
    zones = organizations.client_time_zones(db)
    return {client_id: moment.astimezone(zone_of(name)).date() for client_id, name in zones.items()}


def client_rules(db: Session) -> tuple[rules.LimitRule, ...]:
    """The platform defaults followed by the session client's own rules (rule_for picks between them)."""
    own = db.scalars(select(PayerRule).order_by(PayerRule.id))
    return (*rules.RULES, *(as_limit(r) for r in own))


def as_limit(row: PayerRule) -> rules.LimitRule:
    return rules.LimitRule(
        payer_type=row.payer_type,
        plan=row.payer_id,
        level=row.level,
        days=row.days,
        day_count="business" if row.day_count == "business" else "calendar",
        roll_forward=row.roll_forward,
        basis=row.basis,
        receipt_days=row.receipt_days,
        is_default=False,
        order=10_000 + row.id,
        source=row.source,
        effective_from=row.effective_from,
        rule_id=row.id,
    )


@dataclass(frozen=True, slots=True)
class Subject:
    """What the facts of a case's deadlines are read from: the case's own columns (``subject_of``), or a
    claim's for a claim without a case (no remittance, no denial)."""

    id: int
    claim_key: str
    payer_id: str | None
    payer_class: str | None = None
    source_batch_id: int | None = None
    remittance_date: date | None = None
    service_date: date | None = None
    hard_or_soft: str | None = None
    stated_appeal_deadline: date | None = None


def subject_of(case: DenialCase) -> Subject:
    return Subject(
        id=case.id,
        claim_key=case.claim_key,
        payer_id=case.payer_id,
        payer_class=case.payer_class,
        source_batch_id=case.source_batch_id,
        remittance_date=case.remittance_date,
        service_date=case.service_date,
        hard_or_soft=case.hard_or_soft,
        stated_appeal_deadline=case.stated_appeal_deadline,
    )


@dataclass(frozen=True, slots=True)
class _Remitted:
    filing_indicator: str | None
    through: date | None


@dataclass(frozen=True, slots=True)
class _Filed:
    filing_indicator: str | None
    through: date | None
    batch_id: int | None


def _day(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def _chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def _remitted(db: Session, cases: Sequence[Subject]) -> dict[tuple[int, str], _Remitted]:
    """(batch, CLP01) -> CLP06 and DTM*233 of the 835 claims the cases came from."""
    batches = sorted({c.source_batch_id for c in cases if c.source_batch_id is not None})
    keys = sorted({c.claim_key for c in cases if c.source_batch_id is not None})
    out: dict[tuple[int, str], _Remitted] = {}
    if not batches:
        return out
    wanted = set(keys)
    found = ingestion.remitted_claims(db, batches, keys if len(keys) <= CHUNK else None)
    for batch_id, key, indicator, through in found:
        if str(key) in wanted:
            out.setdefault((int(batch_id), str(key)), _Remitted(str(indicator) if indicator else None, _day(through)))
    return out


def _filed(db: Session, cases: Sequence[Subject]) -> dict[str, _Filed]:
    """CLM01 -> the claims table's filing indicator, statement-to date and 837 batch."""
    out: dict[str, _Filed] = {}
    for chunk in _chunks(sorted({c.claim_key for c in cases})):
        found = db.execute(
            select(Claim.claim_key, Claim.filing_indicator, Claim.statement_to, Claim.source_batch_id).where(
                Claim.claim_key.in_(chunk)
            )
        )
        for key, indicator, through, batch_id in found:
            out[str(key)] = _Filed(indicator, through, batch_id)
    return out


def _institutional(db: Session, filed: dict[str, _Filed]) -> set[str]:
    """The claim keys whose 837 was an 837I (the 837's own implementation reference says so)."""
    batches = sorted({f.batch_id for f in filed.values() if f.batch_id is not None})
    if not batches:
        return set()
    keys = sorted(filed) if len(filed) <= CHUNK else None
    return ingestion.claim_keys_of_type(db, batches, INSTITUTIONAL, keys) & set(filed)


def _aliases(db: Session, cases: Sequence[Subject]) -> dict[str, tuple[str | None, str | None]]:
    """Upper-cased payer id -> (canonical payer id, payer class) of the tenant's payer-id aliases."""
    ids = sorted({c.payer_id.strip().upper() for c in cases if c.payer_id})
    if not ids:
        return {}
    return reconciliation.payer_id_aliases(db, ids)


@dataclass(frozen=True, slots=True)
class _Lookups:
    remitted: dict[tuple[int, str], _Remitted]
    filed: dict[str, _Filed]
    institutional: set[str]
    aliases: dict[str, tuple[str | None, str | None]]


def _class_and_indicator(case: Subject, found: _Lookups) -> tuple[str | None, str | None, str | None]:
    """(payer class, filing indicator, payer id for per-payer rules) of a case."""
    remitted = found.remitted.get((case.source_batch_id or 0, case.claim_key))
    filed = found.filed.get(case.claim_key)
    indicator = (remitted.filing_indicator if remitted else None) or (filed.filing_indicator if filed else None)
    payer_class = case.payer_class or payer_class_of(indicator)
    canonical, alias_class = found.aliases.get((case.payer_id or "").strip().upper(), (None, None))
    if alias_class:
        # the tenant said which class this payer is: the indicator counts only when it agrees
        indicator = indicator if payer_class_of(indicator) == alias_class else None
        payer_class = alias_class
    return payer_class, indicator, canonical or case.payer_id


def _service_date(case: Subject, found: _Lookups) -> date | None:
    if case.claim_key not in found.institutional:
        return case.service_date
    remitted = found.remitted.get((case.source_batch_id or 0, case.claim_key))
    filed = found.filed.get(case.claim_key)
    through = (remitted.through if remitted else None) or (filed.through if filed else None)
    return through or case.service_date


def case_facts(db: Session, cases: Sequence[DenialCase]) -> dict[int, rules.CaseFacts]:
    """The facts of each case's deadlines (see the module docstring), by case id."""
    return subjects_facts(db, [subject_of(c) for c in cases])


def subjects_facts(db: Session, cases: Sequence[Subject]) -> dict[int, rules.CaseFacts]:
    """``case_facts`` of what a case holds, given as plain values (a claim without a case, too)."""
    if not cases:
        return {}
    filed = _filed(db, cases)
    found = _Lookups(_remitted(db, cases), filed, _institutional(db, filed), _aliases(db, cases))
    out: dict[int, rules.CaseFacts] = {}
    for case in cases:
        payer_class, indicator, payer_id = _class_and_indicator(case, found)
        out[case.id] = rules.CaseFacts(
            payer_class=payer_class,
            filing_indicator=indicator,
            payer_id=payer_id,
            notice_date=case.remittance_date,
            service_date=_service_date(case, found),
            soft_denial=case.hard_or_soft == "soft",
            stated_appeal_due=case.stated_appeal_deadline,
        )
    return out
