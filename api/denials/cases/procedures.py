"""cases.*: denial cases, the unit of recovery work (one per claim x payer x denial event).

Cases open by themselves when a confirmed remittance carries a denial or takes money back
(``api.denials.cases.intake``) and by hand with cases.open. The audit log names the case by id;
claim keys and note texts never reach it.
"""

from __future__ import annotations

from api.denials.cases import service
from api.denials.cases.models import DenialCase
from api.denials.cases.schemas import (
    AddNoteIn,
    AssignIn,
    CaseDetailOut,
    CaseEventOut,
    CaseOut,
    CaseRef,
    ListCasesIn,
    NoteOut,
    OpenCaseIn,
    OpenCaseOut,
    TransitionIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("cases")


@router.query("get")
def get(ctx: Context, input: CaseRef) -> CaseDetailOut:
    """One case with its state, owner, money (at stake, paid before, recovered, written off), its
    history of events and its notes."""
    case = service.get_case(ctx.db, input.id)
    return CaseDetailOut(
        case=CaseOut.model_validate(case),
        events=[CaseEventOut.model_validate(e) for e in service.events_of(ctx.db, case.id)],
        notes=[NoteOut.model_validate(n) for n in service.notes_of(ctx.db, case.id)],
    )


@router.query("list")
def list_cases(ctx: Context, input: ListCasesIn) -> Page[CaseOut]:
    """The client's cases, newest first, filtered like a worklist: states, owner ("me", "unassigned"
    or a user id), payer, category, CARC, minimum amount at stake, appeal due before a date,
    escalated, on hold. Paginated with nextCursor; no note texts."""
    filters = service.CaseFilters(
        states=tuple(input.states),
        owner=input.owner,
        payer=input.payer,
        category=input.category,
        carc=input.carc,
        min_amount=input.min_amount,
        due_before=input.due_before,
        escalated=input.escalated,
        on_hold=input.on_hold,
    )
    return paginate(ctx.db, service.worklist(filters, ctx.user_id), DenialCase.id, input, CaseOut.model_validate)


@router.mutation("open")
def open_case(ctx: Context, input: OpenCaseIn) -> OpenCaseOut:
    """Open a case by hand for a claim, payer and amount at stake (category from the CARC when one is
    given). Idempotent: the same claim, payer, kind, amount, date and reference answer the existing
    case with created=false."""
    given = service.ManualOpening(
        claim_key=input.claim_key,
        payer=input.payer,
        amount_at_stake=input.amount_at_stake,
        event_kind=input.event_kind,
        denial_category=input.denial_category,
        group_code=input.group_code,
        carc=input.carc,
        rarcs=tuple(input.rarcs),
        denied_on=input.denied_on,
        reference=input.reference,
    )
    case, created = service.open_manual(
        ctx.db, given, organization_id=ctx.org_id, client_id=ctx.client_id, user_id=ctx.user_id
    )
    if created:
        ctx.services.case_opened.emit(ctx.db, [case.id])  # e.g. its appeal deadlines are scheduled
    ctx.note("case", case.id, after={"created": created, "state": case.state, "amount": f"{case.amount_at_stake:.2f}"})
    return OpenCaseOut(case=CaseOut.model_validate(case), created=created)


@router.mutation("assign")
def assign(ctx: Context, input: AssignIn) -> CaseOut:
    """Give a case an owner, a member of the organization whose membership reaches this client and
    whose role may work cases (null unassigns). A closed case must be reopened first."""
    case, previous = service.assign(ctx.db, input.id, input.owner_user_id, user_id=ctx.user_id)
    if case.owner_user_id is not None and case.owner_user_id != previous:
        ctx.services.case_assigned.emit(ctx.db, [case.id], case.owner_user_id, ctx.user_id)  # the owner is told
    ctx.note("case", case.id, before={"owner": previous}, after={"owner": case.owner_user_id})
    return CaseOut.model_validate(case)


@router.mutation("transition")
def transition(ctx: Context, input: TransitionIn) -> CaseOut:
    """Move a case along its lifecycle (open -> triaged -> in_appeal -> awaiting_payer -> won /
    partially_won / lost / written_off -> closed); any other move is PRECONDITION_FAILED. Reopening a
    decided or closed case needs a reason; lost or written off records the amount not recovered."""
    case, before = service.transition(ctx.db, input.id, input.to, reason=input.reason, user_id=ctx.user_id)
    ctx.note("case", case.id, before={"state": before}, after={"state": case.state})
    return CaseOut.model_validate(case)


@router.mutation("addNote")
def add_note(ctx: Context, input: AddNoteIn) -> NoteOut:
    """Add a note to a case. Its text is shown to members of the client, never logged or audited."""
    note = service.add_note(ctx.db, input.id, input.body, user_id=ctx.user_id)
    ctx.note("case", input.id, after={"note_id": note.id})
    return NoteOut.model_validate(note)
