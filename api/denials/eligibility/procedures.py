"""eligibility.*: coverage checks through a transport (the sandbox by default), a patient's history of
checks, and eligibility denials against the checks done before their service."""

from __future__ import annotations

from datetime import UTC, datetime

from api.denials.deadlines.facts import client_today
from api.denials.eligibility import service
from api.denials.eligibility.models import EligibilityCheck
from api.denials.eligibility.schemas import (
    CheckIn,
    CheckOut,
    CheckRef,
    CheckSummaryOut,
    DenialCaseOut,
    DenialsIn,
    DenialsOut,
    HistoryIn,
)
from api.denials.eligibility.transport import transport_for
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, decode_cursor, encode_cursor, paginate

router = rpc.namespace("eligibility")


def _exchange(ctx: Context, input: CheckIn) -> service.Exchanged:
    """The prepare step of check: the 270 written, sent and answered without the write lock."""
    settings = ctx.services.settings
    transport = transport_for(settings.eligibility_transport)
    request = service.CheckRequest(
        patient_ref=input.patient_ref,
        payer_id=input.payer_id,
        payer_name=input.payer_name,
        member_id=input.member_id.get_secret_value(),
        birth_date=input.birth_day(),
        service_date=input.service_date,
        service_types=tuple(input.service_type_codes),
        provider_npi=input.provider_npi or settings.eligibility_provider_npi,
    )
    provider = service.Provider(settings.eligibility_provider_name, settings.eligibility_sender_id)
    return service.exchange(
        request, key=ctx.services.digest_key, provider=provider, transport=transport, now=datetime.now(UTC)
    )


@router.mutation("check", prepare=_exchange)
def check(ctx: Context, input: CheckIn, prepared: service.Exchanged) -> CheckOut:
    """Check a patient's coverage with a payer for a service date: an X12 270 (005010X279A1) is sent
    through the configured transport (the sandbox payer unless ELIGIBILITY_TRANSPORT names another; one
    not configured is PRECONDITION_FAILED), its 271 read and stored as the check: status active, inactive
    (or the plan ended before the service date), not_found (AAA 72/73/75...), rejected (other AAA) or error
    (no usable answer, with the reason), the plan and its dates, other coverage (EB*R) and the patient's
    share (deductible, coinsurance, copayment, out of pocket). The member id is kept as a keyed digest and
    its last four characters; the birth date and the raw 270/271 are not stored (their SHA-256 are)."""
    row = service.record(ctx.db, prepared, checked_on=client_today(ctx.db, prepared.at), user_id=ctx.user_id)
    ctx.note("eligibility_check", row.id, after=service.audit_view(row))
    return CheckOut.model_validate(row)


@router.query("get")
def get(ctx: Context, input: CheckRef) -> CheckOut:
    """One check of the selected client by id (another client's is NOT_FOUND)."""
    return CheckOut.model_validate(service.get(ctx.db, input.id))


@router.query("history")
def history(ctx: Context, input: HistoryIn) -> Page[CheckOut]:
    """The coverage checks of a patient reference (optionally with one payer), newest first, paged."""
    stmt = service.history_statement(input.patient_ref, input.payer_id)
    return paginate(ctx.db, stmt, EligibilityCheck.id, input, CheckOut.model_validate)


@router.query("denialsByEligibility")
def denials_by_eligibility(ctx: Context, input: DenialsIn) -> DenialsOut:
    """Eligibility-category denial cases (newest first, paged) with the check that stands for each: the
    latest check of the claim's patient reference on or before the service date (bucket checked_active
    or checked_inactive), else the first one after it (checked_after_service), else no_check
    (service_date_unknown without a service date); checks that got no answer (error) count as none.
    `counts` holds every bucket over all the cases read (at most 10,000, newest first)."""
    found = service.denials_by_eligibility(
        ctx.db, after=decode_cursor(input.cursor), bucket=input.bucket, limit=input.limit
    )
    return DenialsOut(
        items=[_denial_out(r) for r in found.rows],
        next_cursor=encode_cursor(found.next_after) if found.next_after is not None else None,
        counts=found.counts,  # type: ignore[arg-type]
        cases_read=found.cases_read,
        truncated=found.truncated,
    )


def _denial_out(r: service.DenialRow) -> DenialCaseOut:
    return DenialCaseOut(
        case_id=r.case_id,
        payer=r.payer,
        payer_id=r.payer_id,
        carc=r.carc,
        state=r.state,
        amount_at_stake=f"{r.amount_at_stake:.2f}",
        service_date=r.service_date,
        patient_ref=r.patient_ref,
        bucket=r.bucket,  # type: ignore[arg-type]
        checked=r.check is not None,
        check=CheckSummaryOut.model_validate(r.check) if r.check is not None else None,
    )
