"""priorAuthorization.*: which services need a payer's prior authorization (the platform's reference list
with its citations, a client's own requirements over it), the requests and the payer's answers, and the
status of a claim's lines — the flag claims.requestSubmissionPreparation refuses on. A client's
requirements are read here and changed only through payer rules' approval (payerRules.proposeAuthorization,
then payerRules.decide by another manager).

Audit notes carry ids, states, codes and line numbers only: never the claim key, the patient or dates
of service.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from api.denials.prior_authorization import service
from api.denials.prior_authorization.lifecycle import AUTHORIZATION
from api.denials.prior_authorization.models import PriorAuthorization, PriorAuthRequirement
from api.denials.prior_authorization.requirements import Requirement, ServiceFacts
from api.denials.prior_authorization.schemas import (
    AuthorizationOut,
    AuthorizationRef,
    CheckIn,
    CheckOut,
    ClaimRef,
    LineOut,
    ListIn,
    MissingOut,
    RecordIn,
    RequestIn,
    RequirementOut,
    RequirementsIn,
    RequirementsOut,
    StatusOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("priorAuthorization")


def _requirement(req: Requirement) -> RequirementOut:
    return RequirementOut.model_validate(service.requirement_view(req))


def _authorization(row: PriorAuthorization, today: date) -> AuthorizationOut:
    values: dict[str, Any] = {c.key: getattr(row, c.key) for c in PriorAuthorization.__table__.columns}
    values["stored_state"] = row.state
    values["state"] = service.shown_state(row, today)
    values["allowed_moves"] = sorted(AUTHORIZATION.allowed(row.state))
    return AuthorizationOut.model_validate(values)


def _moved(ctx: Context, row: PriorAuthorization, before: str | None) -> AuthorizationOut:
    ctx.note(
        "prior_authorization",
        row.id,
        before=None if before is None else {"state": before},
        after={"state": row.state, "claim": row.claim_id, "line": row.line_number, "code": row.procedure_code},
    )
    return _authorization(row, service.today(ctx.db))


@router.mutation("request")
def request(ctx: Context, input: RequestIn) -> AuthorizationOut:
    """Record a request for the payer's prior authorization of a claim's procedure: by `lineNumber` (its
    code, units and service dates unless given) or by `procedureCode` (a CPT/HCPCS code; units default
    to 1, dates to the claim's), optionally for a denial case and with the payer's tracking number.
    State `requested`. Unknown claim or case: NOT_FOUND; a closed or withdrawn claim: PRECONDITION_FAILED."""
    given = service.NewRequest(
        claim_id=input.claim_id,
        line_number=input.line_number,
        procedure_code=input.procedure_code,
        units=input.units,
        service_from=input.service_from,
        service_to=input.service_to,
        case_id=input.case_id,
        payer_reference=input.payer_reference,
    )
    return _moved(ctx, service.request(ctx.db, given, user_id=ctx.user_id), None)


@router.mutation("record")
def record(ctx: Context, input: RecordIn) -> AuthorizationOut:
    """Record the payer's answer to a request: `pending` (acknowledged), `approved` (authorization number,
    approved units, valid from/to: all required), `denied` (reason required), or `withdrawn` by the
    hospital (reason required). A move the lifecycle does not allow is PRECONDITION_FAILED naming the state."""
    answer = service.Answer(
        outcome=input.outcome,
        authorization_number=input.authorization_number,
        approved_units=input.approved_units,
        valid_from=input.valid_from,
        valid_to=input.valid_to,
        reason=input.reason,
        payer_reference=input.payer_reference,
    )
    row, before = service.record(ctx.db, input.id, answer, user_id=ctx.user_id)
    return _moved(ctx, row, before)


@router.query("get")
def get(ctx: Context, input: AuthorizationRef) -> AuthorizationOut:
    """One request with its answer; `state` is `expired` for an approval whose valid-to date has passed."""
    return _authorization(service.get(ctx.db, input.id), service.today(ctx.db))


@router.query("list")
def list_(ctx: Context, input: ListIn) -> Page[AuthorizationOut]:
    """Requests of the selected client, newest first; filter by claim and stored state."""
    if input.claim_id is not None:
        service.require_claim(ctx.db, input.claim_id)
    today = service.today(ctx.db)
    stmt = service.list_statement(claim_id=input.claim_id, state=input.state)
    return paginate(ctx.db, stmt, PriorAuthorization.id, input, lambda row: _authorization(row, today))


@router.query("status")
def status(ctx: Context, input: ClaimRef) -> StatusOut:
    """Each line of a claim with the prior-authorization requirement that applies (and its source), the
    approved request covering it, or why none does (none requested, pending, denied, expired, dates not
    covered, units exceeded); `clear` is false while any line misses one, and then
    claims.requestSubmissionPreparation refuses the claim. Payer type from the claim's filing indicator
    and the client's payer alias, like the deadlines'."""
    found = service.claim_status(ctx.db, input.claim_id)
    today = service.today(ctx.db)
    lines = [
        LineOut(
            line_number=line.line_number,
            procedure_code=line.procedure_code,
            units=line.units,
            required=line.decision is not None and line.decision.required,
            assumed=line.decision is not None and line.decision.assumed,
            requirement=None if line.decision is None else _requirement(line.decision.requirement),
            covered_by=None if line.verdict is None else line.verdict.covered_by,
            missing=None if line.verdict is None else line.verdict.missing,
        )
        for line in found.lines
    ]
    return StatusOut(
        claim_id=found.claim_id,
        clear=found.clear,
        payer_type=found.payer_type,
        payer_type_assumed=found.payer_type_assumed,
        payer_type_basis=found.payer_type_basis,
        lines=lines,
        missing=[MissingOut.model_validate(m) for m in service.missing_of(found)],
        authorizations=[_authorization(row, today) for row in found.authorizations],
    )


@router.query("requirements")
def requirements(ctx: Context, input: RequirementsIn) -> RequirementsOut:
    """Prior-authorization requirements by payer x CPT/HCPCS: the client's own, each with its version
    (newest first, paginated; filters: payer type, payer id, a code they include; written only by an
    approved payerRules.proposeAuthorization) and the platform's reference requirements matching
    the filters (Medicare's hospital outpatient department list, 42 CFR 419.83, each row with its source)."""
    code = None if input.procedure_code is None else service.parse_code(input.procedure_code)
    stmt = service.requirement_list_statement(payer_type=input.payer_type, payer_id=input.payer_id, procedure_code=code)
    page = paginate(ctx.db, stmt, PriorAuthRequirement.id, input, lambda row: _requirement(service.as_requirement(row)))
    defaults = service.platform_listed(payer_type=input.payer_type, procedure_code=code)
    if input.payer_id not in (None, "*"):
        defaults = []  # the platform's requirements are type-wide; a payer filter asks for the client's
    return RequirementsOut(items=page.items, next_cursor=page.next_cursor, defaults=[_requirement(r) for r in defaults])


@router.query("check")
def check(ctx: Context, input: CheckIn) -> CheckOut:
    """Whether a service described by hand needs a prior authorization (before it is rendered or billed:
    payer type, payer, plan, place of service, revenue code, code, date) and the requirement that applies,
    with its source; payer type `unknown` tries every common payer type (flagged assumed)."""
    facts = ServiceFacts(
        payer_type=input.payer_type,
        procedure_code=service.parse_code(input.procedure_code),
        service_date=input.service_date,
        payer_id=input.payer_id if input.payer_id != "*" else None,
        plan=input.plan if input.plan != "*" else None,
        place_of_service=input.place_of_service,
        revenue_code=input.revenue_code,
    )
    found = service.requirement_for(ctx.db, facts)
    return CheckOut(
        required=found is not None and found.required,
        assumed=found is not None and found.assumed,
        requirement=None if found is None else _requirement(found.requirement),
    )
