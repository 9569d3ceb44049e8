"""financialClearance.*: a claim cleared before its service — the latest eligibility check of its patient
with its payer, the prior authorizations its lines need, and the patient's estimate — stored as a
clearance record; the latest clearance of a claim and whether a newer check or authorization makes it stale.

Audit notes carry ids, the status and the blockers' kinds only: never the patient or dates of service.
"""

from __future__ import annotations

from decimal import Decimal

from api.core.errors import PreconditionFailed
from api.denials.financial_clearance import queries, service
from api.denials.financial_clearance.models import FinancialClearance
from api.denials.financial_clearance.schemas import ClaimRef, ClearanceOut, ListIn, StatusOut
from api.infra.marts.serving import open_marts
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("financialClearance")


def _contracted(ctx: Context, claim_id: int) -> dict[tuple[str, Decimal], Decimal]:
    """The contracted amounts the published marts know for the claim's lines; none when there are no
    marts yet (the lines then stand at their charge, said in the estimate's notes)."""
    keys = service.pricing_keys(ctx.db, claim_id)
    if keys.payer_key is None or keys.service_date is None or not keys.procedure_codes:
        return {}
    try:
        with open_marts(ctx, *queries.LINE_MARTS) as m:
            return queries.contracted(m, keys.payer_key, keys.procedure_codes, keys.service_date)
    except PreconditionFailed:  # analytics not configured or the mart not published yet
        return {}


@router.mutation("clear")
def clear(ctx: Context, input: ClaimRef) -> ClearanceOut:
    """Evaluate a claim now: `cleared` when the latest eligibility check of its patient with its payer on
    or before the service date is active for that date and no line misses a prior authorization, else
    `blocked` with each blocker (no check, coverage not active, a line and code without authorization).
    With an active check, the patient's estimate from the 271's benefits over the lines' allowed amounts
    (contracted where the marts know it, else the charge: a ceiling). Stored; unknown claim NOT_FOUND."""
    row = service.clear(ctx.db, input.claim_id, contracted=_contracted(ctx, input.claim_id), user_id=ctx.user_id)
    ctx.note("financial_clearance", row.id, after=service.audit_view(row))
    return ClearanceOut.model_validate(row)


@router.query("status")
def status(ctx: Context, input: ClaimRef) -> StatusOut:
    """The claim's latest clearance (None if never cleared) and whether it is stale: an eligibility check
    of its patient with its payer, or an authorization request of the claim, made or answered after it."""
    found = service.latest(ctx.db, input.claim_id)
    return StatusOut(
        claim_id=found.claim_id,
        clearance=None if found.clearance is None else ClearanceOut.model_validate(found.clearance),
        stale=bool(found.stale_because),
        stale_because=found.stale_because,
    )


@router.query("list")
def list_clearances(ctx: Context, input: ListIn) -> Page[ClearanceOut]:
    """The client's clearances, newest first; filter by status and claim."""
    stmt = service.list_statement(status=input.status, claim_id=input.claim_id)
    return paginate(ctx.db, stmt, FinancialClearance.id, input, ClearanceOut.model_validate)
