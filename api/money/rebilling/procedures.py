"""rebilling.*: corrected claims and resubmissions, from draft to the payer's answer.

Lifecycle draft -> ready -> submitted -> accepted | rejected (``lifecycle.py``). The timely-filing
limit of the payer type (``api/denials/deadlines/rules.py``, counted from the date of service) is
checked at create and at markSubmitted: past it, PRECONDITION_FAILED naming the limit and the date,
unless an override reason is given.
"""

from __future__ import annotations

from typing import Any

from api.denials.deadlines.service import client_today
from api.money.rebilling import service
from api.money.rebilling.models import Rebill
from api.money.rebilling.schemas import (
    CreateRebillIn,
    ListRebillsIn,
    MarkSubmittedIn,
    RebillOut,
    RebillPage,
    RebillRef,
    RecordResponseIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import paginate

router = rpc.namespace("rebilling")

_STORED = [name for name in RebillOut.model_fields if name != "filed_late"]


def _out(r: Rebill) -> RebillOut:
    late = r.timely_filing_override_reason is not None
    return RebillOut.model_validate({**{name: getattr(r, name) for name in _STORED}, "filed_late": late})


def _state_note(ctx: Context, r: Rebill, before: str | None) -> None:
    after: dict[str, Any] = {"state": r.state, "filed_late": r.timely_filing_override_reason is not None}
    ctx.note("rebill", r.id, before={"state": before} if before else None, after=after)


@router.mutation("createRebill")
def create_rebill(ctx: Context, input: CreateRebillIn) -> RebillOut:
    """Start a corrected claim (frequency 7 or 8) or a resubmission, for a denial case (its claim, payer
    and date of service) or a claim given by key and payer. Past the payer's timely-filing limit:
    PRECONDITION_FAILED with the limit and the date, unless `overrideReason` is given. Starts as draft."""
    spec = service.NewRebill(
        case_id=input.case_id,
        claim_key=input.claim_key,
        payer=input.payer,
        payer_class=input.payer_class,
        service_date=input.service_date,
        kind=input.kind,
        frequency_code=input.frequency_code,
        override_reason=input.override_reason,
    )
    rebill = service.create(ctx.db, spec, user_id=ctx.user_id, on=client_today(ctx.db))
    _state_note(ctx, rebill, None)
    return _out(rebill)


@router.query("listRebills")
def list_rebills(ctx: Context, input: ListRebillsIn) -> RebillPage:
    """Rebills, newest first; filters: state, case, kind."""
    stmt = service.list_statement(input.state, input.case_id, input.kind)
    page = paginate(ctx.db, stmt, Rebill.id, input, _out)
    return RebillPage(items=page.items, next_cursor=page.next_cursor)


@router.mutation("markReady")
def mark_ready(ctx: Context, input: RebillRef) -> RebillOut:
    """A draft is complete and may be sent (draft -> ready); other states: PRECONDITION_FAILED."""
    rebill = service.get(ctx.db, input.id)
    before = service.move(ctx.db, rebill, "ready", user_id=ctx.user_id)
    _state_note(ctx, rebill, before)
    return _out(rebill)


@router.mutation("markSubmitted")
def mark_submitted(ctx: Context, input: MarkSubmittedIn) -> RebillOut:
    """The rebill went to the payer on `submittedOn` (ready -> submitted). Past the timely-filing limit
    at that date: PRECONDITION_FAILED with the limit and the date, unless an override reason was given
    now or at create. Meets the case's timely-filing deadline."""
    now = client_today(ctx.db)
    rebill, before = service.mark_submitted(
        ctx.db,
        input.id,
        user_id=ctx.user_id,
        submitted_on=input.submitted_on or now,
        today=now,
        override_reason=input.override_reason,
        payer_reference=input.payer_reference,
    )
    _state_note(ctx, rebill, before)
    return _out(rebill)


@router.mutation("recordResponse")
def record_response(ctx: Context, input: RecordResponseIn) -> RebillOut:
    """The payer accepted or rejected a submitted rebill (submitted -> accepted | rejected)."""
    rebill = service.get(ctx.db, input.id)
    before = service.move(ctx.db, rebill, input.outcome, user_id=ctx.user_id)
    _state_note(ctx, rebill, before)
    return _out(rebill)
