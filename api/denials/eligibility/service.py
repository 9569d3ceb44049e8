"""Eligibility checks: the exchange (270 out, 271 back, read and summarised), storing its outcome, a
patient's history, and the eligibility denials against the checks done before their service.

Functions take plain values, never commit, and never put a member id, birth date or name in a message.
The exchange runs before the write transaction (the procedure's prepare step): a payer's answer can take
seconds and must not hold the database's write lock.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeAlias

from sqlalchemy import ColumnElement, Select, and_, case, func, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.denials.cases.models import DenialCase
from api.denials.claims.models import Claim
from api.denials.eligibility import buckets
from api.denials.eligibility.models import EligibilityCheck
from api.denials.eligibility.summary import Summary, patient_of, summarise
from api.denials.eligibility.transport import Transport, TransportFailed
from api.infra.db.lookup import get_by_id, where_given
from pipelines.ingest.x12.eligibility.inquiry_270 import Envelope, Inquiry, write_270
from pipelines.ingest.x12.eligibility.response_271 import parse_271
from pipelines.ingest.x12.errors import X12ParseError

ELIGIBILITY_CATEGORY = "eligibility"  # the CARC classification's category (seed denial_categories)
MAX_DENIAL_CASES = 10_000  # denialsByEligibility reads at most this many cases, newest first


@dataclass(frozen=True)
class CheckRequest:
    """What the caller asks. `member_id` and `birth_date` are PHI: used for the 270 only."""

    patient_ref: str
    payer_id: str
    payer_name: str | None
    member_id: str = field(repr=False)
    birth_date: date | None = field(repr=False)
    service_date: date
    service_types: tuple[str, ...]
    provider_npi: str


@dataclass(frozen=True)
class Provider:
    """Who asks (the 2100B information receiver) and the interchange's sender id (ISA06)."""

    name: str
    sender_id: str


@dataclass(frozen=True)
class Exchanged:
    """One exchange's outcome, without the member id or birth date (only their keyed digest and last 4)."""

    request: CheckRequest
    member_key: str
    member_last4: str
    transport: str
    summary: Summary
    interchange_control: str
    trace_number: str
    request_digest: str
    request_bytes: int
    response_digest: str | None
    response_bytes: int | None
    response_interchange_control: str | None
    response_transaction_control: str | None
    at: datetime


def member_key(key: bytes, payer_id: str, member_id: str) -> str:
    """The keyed digest a member id is stored as (per payer: ids are the payer's)."""
    if not key:
        raise ValueError("member ids are stored as keyed digests: no key given")
    message = "\x1f".join(("eligibility-member", payer_id.strip().upper(), member_id.strip().upper()))
    return hmac.new(key, message.encode("utf-8"), hashlib.sha256).hexdigest()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _error(summary_reason: str) -> Summary:
    return Summary("error", summary_reason[:300], (), None)


def exchange(
    request: CheckRequest, *, key: bytes, provider: Provider, transport: Transport, now: datetime
) -> Exchanged:
    """Write the 270, send it, read and summarise the 271. A value the 270 cannot carry is INVALID_INPUT;
    a failed transport or an unreadable 271 is an `error` outcome (stored, with the reason)."""
    control = secrets.randbelow(999_999_999) + 1
    trace = secrets.token_hex(8).upper()
    inquiry = Inquiry(
        payer_id=request.payer_id,
        payer_name=request.payer_name or request.payer_id,
        provider_npi=request.provider_npi,
        provider_name=provider.name,
        member_id=request.member_id,
        service_date=request.service_date,
        service_types=request.service_types,
        trace_number=trace,
        reference=trace,
        birth_date=request.birth_date,
    )
    envelope = Envelope(provider.sender_id, request.payer_id[:15], control, control, control, now)
    try:
        sent = write_270(inquiry, envelope)
    except ValueError as exc:
        raise InvalidInput(f"Invalid input: {exc}") from None
    base = Exchanged(
        request=request,
        member_key=member_key(key, request.payer_id, request.member_id),
        member_last4=request.member_id[-4:],
        transport=transport.name,
        summary=_error("no answer yet"),
        interchange_control=f"{control:09d}",
        trace_number=trace,
        request_digest=_sha256(sent),
        request_bytes=len(sent),
        response_digest=None,
        response_bytes=None,
        response_interchange_control=None,
        response_transaction_control=None,
        at=now,
    )
    try:
        answer = transport.exchange(sent, now=now)
    except TransportFailed as exc:
        return replace(base, summary=_error(str(exc)))
    received = replace(base, response_digest=_sha256(answer), response_bytes=len(answer))
    try:
        response = parse_271(answer, source="the payer's 271")
    except X12ParseError as exc:  # its message names segments and elements, never a value
        return replace(received, summary=_error(str(exc)))
    patient = patient_of(response)
    if patient is not None and patient.trace_numbers and trace not in patient.trace_numbers:
        summary = _error("the 271 does not echo this inquiry's trace number (2000C TRN02): not our answer")
    else:
        summary = summarise(response, request.service_date)
    return replace(
        received,
        summary=summary,
        response_interchange_control=response.interchange_control_number[:9],
        response_transaction_control=response.transaction_control_number[:9],
    )


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def record(db: Session, done: Exchanged, *, checked_on: date, user_id: int) -> EligibilityCheck:
    """Store the exchange's outcome as a check of the session's client."""
    r, s = done.request, done.summary
    control = done.interchange_control
    row = EligibilityCheck(
        patient_ref=r.patient_ref,
        payer_id=r.payer_id,
        payer_name=s.payer_name[:200] if s.payer_name else None,
        member_key=done.member_key,
        member_last4=done.member_last4,
        birth_date_sent=r.birth_date is not None,
        service_date=r.service_date,
        service_types=list(r.service_types),
        provider_npi=r.provider_npi,
        transport=done.transport,
        status=s.status,
        status_reason=s.reason,
        rejection_codes=list(s.rejection_codes),
        plan_name=s.plan_name[:200] if s.plan_name else None,
        group_number=s.group_number[:80] if s.group_number else None,
        plan_begin=s.plan_begin,
        plan_end=s.plan_end,
        other_coverage=[_plain(asdict(o)) for o in s.other_coverage],
        patient_share=[_plain(asdict(p)) for p in s.patient_share],
        interchange_control=control,
        group_control=str(int(control)),
        transaction_control=f"{int(control):04d}",
        trace_number=done.trace_number,
        response_interchange_control=done.response_interchange_control,
        response_transaction_control=done.response_transaction_control,
        request_digest=done.request_digest,
        request_bytes=done.request_bytes,
        response_digest=done.response_digest,
        response_bytes=done.response_bytes,
        checked_at=done.at,
        checked_on=checked_on,
        checked_by_user_id=user_id,
    )
    db.add(row)
    db.flush()
    return row


def audit_view(row: EligibilityCheck) -> dict[str, Any]:
    """What the audit log may digest of a check: its outcome and the exchange's digests, never the
    member (not even the keyed digest of its id), the birth date or the service date."""
    return {
        "payer_id": row.payer_id,
        "transport": row.transport,
        "status": row.status,
        "interchange_control": row.interchange_control,
        "request_digest": row.request_digest,
        "response_digest": row.response_digest,
    }


def get(db: Session, check_id: int) -> EligibilityCheck:
    return get_by_id(db, EligibilityCheck, check_id, "Eligibility check")


#: A check row, named here for other namespaces (financialClearance reads a claim's checks).
CheckRow: TypeAlias = EligibilityCheck

MAX_CHECKS_READ = 500  # a patient's checks with one payer read at once (newest first)


def checks_of(db: Session, patient_ref: str, payer_id: str) -> list[EligibilityCheck]:
    """The checks of one patient reference with one payer, newest first (at most MAX_CHECKS_READ)."""
    stmt = history_statement(patient_ref, payer_id).order_by(EligibilityCheck.id.desc()).limit(MAX_CHECKS_READ)
    return list(db.scalars(stmt))


def history_statement(patient_ref: str, payer_id: str | None = None) -> Select[Any]:
    """The checks of one patient reference (and payer, when given), unordered, for paging."""
    return where_given(
        select(EligibilityCheck).where(EligibilityCheck.patient_ref == patient_ref),
        (EligibilityCheck.payer_id, payer_id),
    )


@dataclass(frozen=True)
class DenialRow:
    """One eligibility denial case and the check that decides its bucket."""

    case_id: int
    payer: str
    payer_id: str | None
    carc: str | None
    state: str
    amount_at_stake: Decimal
    service_date: date | None
    patient_ref: str | None
    bucket: str
    check: EligibilityCheck | None


@dataclass(frozen=True)
class DenialPage:
    rows: list[DenialRow]  # the page, newest case first
    next_after: int | None  # the case id to continue after; None on the last page
    counts: dict[str, int]  # every bucket over every case read, not the page
    cases_read: int
    truncated: bool  # more eligibility cases exist than the MAX_DENIAL_CASES newest read


# `buckets.verdict` in SQL, per case (correlated subqueries over the case's checks, served by the index
# client_id, patient_ref, id): the bucket of every case read is counted in one query, and a page is
# filtered by it and reads only its own cases, without loading every case's checks into Python. Held
# equal to `verdict` on random histories by tests/integration/api/denials/eligibility/test_eligibility_rpc.py.
_SERVICE_DATE = func.coalesce(DenialCase.service_date, Claim.statement_from)
_CLAIM_OF_CASE = and_(Claim.client_id == DenialCase.client_id, Claim.claim_key == DenialCase.claim_key)
_LATEST = (EligibilityCheck.checked_on.desc(), EligibilityCheck.id.desc())
_EARLIEST = (EligibilityCheck.checked_on.asc(), EligibilityCheck.id.asc())


def _answered(column: Any, *where: ColumnElement[bool]) -> Select[Any]:
    """`column` of the case's answered checks (not `error`): those of its claim's patient reference."""
    return select(column).where(
        EligibilityCheck.client_id == DenialCase.client_id,
        EligibilityCheck.patient_ref == Claim.patient_ref,
        EligibilityCheck.status != "error",
        *where,
    )


def _first(column: Any, order: tuple[Any, ...], *where: ColumnElement[bool]) -> Any:
    return _answered(column, *where).order_by(*order).limit(1).scalar_subquery()


_BY_SERVICE = EligibilityCheck.checked_on <= _SERVICE_DATE
_STATUS_BEFORE = _first(EligibilityCheck.status, _LATEST, _BY_SERVICE)
case_bucket = case(
    (_SERVICE_DATE.is_(None), "service_date_unknown"),
    (_STATUS_BEFORE == "active", "checked_active"),
    (_STATUS_BEFORE.is_not(None), "checked_inactive"),
    (_answered(EligibilityCheck.id).exists(), "checked_after_service"),
    else_="no_check",
)
# the check that decided: the latest by the service date, else the earliest after it (no service date:
# the latest of all)
standing_check = case(
    (_SERVICE_DATE.is_(None), _first(EligibilityCheck.id, _LATEST)),
    else_=func.coalesce(_first(EligibilityCheck.id, _LATEST, _BY_SERVICE), _first(EligibilityCheck.id, _EARLIEST)),
)


def _cases(*columns: Any) -> Select[Any]:
    """`columns` of each case with its claim (an ORM outer join: the tenant criteria stay in its ON)."""
    return select(*columns).select_from(DenialCase).outerjoin(Claim, _CLAIM_OF_CASE)


def _read_cases(db: Session) -> tuple[list[ColumnElement[bool]], bool]:
    """Which cases are read: the client's eligibility-category cases, the MAX_DENIAL_CASES newest (the
    conditions), and whether older ones were left out."""
    read = [DenialCase.denial_category == ELIGIBILITY_CATEGORY]
    beyond = db.scalar(
        select(DenialCase.id).where(*read).order_by(DenialCase.id.desc()).offset(MAX_DENIAL_CASES).limit(1)
    )
    if beyond is not None:
        read.append(DenialCase.id > beyond)
    return read, beyond is not None


def _bucket_counts(db: Session, read: list[ColumnElement[bool]]) -> dict[str, int]:
    """Cases per bucket over every case read (every bucket present, 0 when empty): one query."""
    per_case = _cases(case_bucket.label("bucket")).where(*read).subquery()
    found = dict.fromkeys(buckets.BUCKETS, 0)
    for bucket, count in db.execute(select(per_case.c.bucket, func.count()).group_by(per_case.c.bucket)).tuples():
        found[str(bucket)] = int(count)
    return found


def denials_by_eligibility(db: Session, *, after: int | None, bucket: str | None, limit: int) -> DenialPage:
    """One page of the client's eligibility-category denial cases (newest first; ids below `after`, of
    `bucket` when given) with the check that decides each one's bucket (`buckets.verdict`), and the bucket
    counts over every case read (at most MAX_DENIAL_CASES, newest first). A page reads only its own cases
    and their standing checks."""
    read, truncated = _read_cases(db)
    counts = _bucket_counts(db, read)
    stmt = _cases(
        DenialCase.id,
        DenialCase.payer,
        DenialCase.payer_id,
        DenialCase.carc,
        DenialCase.state,
        DenialCase.amount_at_stake,
        _SERVICE_DATE.label("service_date"),
        Claim.patient_ref,
        case_bucket.label("bucket"),
        standing_check.label("check_id"),
    ).where(*read)
    if after is not None:
        stmt = stmt.where(DenialCase.id < after)
    if bucket is not None:
        stmt = stmt.where(case_bucket == bucket)
    found = db.execute(stmt.order_by(DenialCase.id.desc()).limit(limit + 1)).all()
    page = found[:limit]
    ids = sorted({r.check_id for r in page if r.check_id is not None})
    checks = {c.id: c for c in db.scalars(select(EligibilityCheck).where(EligibilityCheck.id.in_(ids)))} if ids else {}
    rows = [
        DenialRow(
            case_id=r.id,
            payer=r.payer,
            payer_id=r.payer_id,
            carc=r.carc,
            state=r.state,
            amount_at_stake=r.amount_at_stake,
            service_date=r.service_date,
            patient_ref=r.patient_ref,
            bucket=r.bucket,
            check=checks.get(r.check_id) if r.check_id is not None else None,
        )
        for r in page
    ]
    next_after = page[-1].id if len(found) > limit and page else None
    return DenialPage(rows, next_after, counts, sum(counts.values()), truncated)
