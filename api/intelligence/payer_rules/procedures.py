"""payerRules.*: appeal and timely-filing limits as data (platform defaults with their citations, a
client's own rules per payer type or payer, effective-dated), which rule applies to a case and why, and
payer aliases. A client's rule changes only through approval: one manager proposes (upsert), another
decides (decide). The same holds for a client's prior-authorization requirements (proposeAuthorization):
approved, they are written to priorAuthorization's requirements (listed, with their versions, by
priorAuthorization.requirements). Writes are for managers and admins and are audited."""

from __future__ import annotations

from api.denials.deadlines.service import client_today
from api.denials.prior_authorization.service import RequirementValues
from api.intelligence.payer_rules import service
from api.intelligence.payer_rules.models import PayerRuleChange
from api.intelligence.payer_rules.schemas import (
    AliasIn,
    AliasOut,
    AuthorizationIn,
    ChangeOut,
    ChangesIn,
    DecideIn,
    DecideOut,
    EvaluateIn,
    EvaluateOut,
    ListIn,
    ListOut,
    ProposeAuthorizationOut,
    RequirementOut,
    RuleOut,
    UpsertIn,
    UpsertOut,
    WithdrawIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, decode_cursor, encode_cursor, paginate

router = rpc.namespace("payerRules")


@router.query("list")
def list_rules(ctx: Context, input: ListIn) -> ListOut:
    """The client's own rules (newest first; filters: payer type, payer id, level; paginated) and every
    platform default (Medicare 42 CFR 405.942 / 424.44, Medicare Advantage 42 CFR 422.582, TRICARE
    32 CFR 199.10 / 199.7(d), Medicaid and commercial defaults), each with its source."""
    items, last, defaults = service.list_rules(
        ctx.db,
        payer_type=input.payer_type,
        payer_id=input.payer_id,
        level=input.level,
        before_id=decode_cursor(input.cursor),
        limit=input.limit,
    )
    cursor = None if last is None else encode_cursor(last)
    return ListOut.model_validate({"items": items, "next_cursor": cursor, "defaults": defaults})


def _change_out(row: PayerRuleChange) -> ChangeOut:
    return ChangeOut(
        id=row.id,
        kind=row.kind,
        state=row.state,
        payload=row.payload,
        proposed_by=row.proposed_by,
        proposed_at=row.created_at,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        reason=row.reason,
        applied_rule_id=row.applied_rule_id,
    )


@router.mutation("upsert", permission="approve")
def upsert(ctx: Context, input: UpsertIn) -> UpsertOut:
    """Propose the client's own limit of one level (an appeal level of the payer type, or timely_filing)
    for a payer type (payerId `*`) or one payer (a state's Medicaid program, a contracted plan: its payer
    id), from `effectiveFrom`. Nothing changes until another manager or admin approves it
    (payerRules.decide: separation of duties); then it overrides the platform default for deadlines whose
    basis date is on or after that date (a payer-specific rule over a type-wide one), the same payer type,
    payer, level and date updating the rule. A level the payer type does not have is BAD_REQUEST. Managers
    and admins; audited."""
    spec = service.RuleSpec(
        payer_type=input.payer_type,
        payer_id=input.payer_id,
        level=input.level,
        days=input.days,
        day_count=input.day_count,
        roll_forward=input.roll_forward,
        receipt_days=input.receipt_days,
        effective_from=input.effective_from,
        source=input.source,
    )
    proposed = service.propose_limit(ctx.db, spec, user_id=ctx.user_id)
    ctx.note("payer_rule_change", proposed.change.id, after=service.change_state(proposed.change))
    return UpsertOut(
        rule=RuleOut.model_validate(proposed.rule),
        created=proposed.created,
        rescheduled=0,
        change=_change_out(proposed.change),
    )


@router.mutation("proposeAuthorization", permission="approve")
def propose_authorization(ctx: Context, input: AuthorizationIn) -> ProposeAuthorizationOut:
    """Propose the client's own prior-authorization requirement (or, with `requiresAuthorization` false, an
    exemption) for a CPT/HCPCS code or code range, per payer type (payerId `*`) or payer, optionally per
    plan, place of service and revenue code, from `effectiveFrom` (to `effectiveTo`), with its source.
    Nothing changes until another manager or admin approves it (payerRules.decide: separation of duties);
    then it overrides a less specific requirement and the platform's at the same specificity, and the same
    scope and date again updates it (version + 1). A malformed code or range is BAD_REQUEST. Managers and
    admins; audited."""
    values = RequirementValues(
        payer_type=input.payer_type,
        payer_id=input.payer_id,
        plan=input.plan,
        procedure_code=input.procedure_codes,
        place_of_service=input.place_of_service,
        revenue_code=input.revenue_code,
        requires_authorization=input.requires_authorization,
        effective_from=input.effective_from,
        effective_to=input.effective_to,
        source=input.source,
    )
    proposed = service.propose_authorization(ctx.db, values, user_id=ctx.user_id)
    ctx.note("payer_rule_change", proposed.change.id, after=service.change_state(proposed.change))
    return ProposeAuthorizationOut(
        requirement=RequirementOut.model_validate(proposed.requirement),
        created=proposed.created,
        change=_change_out(proposed.change),
    )


@router.mutation("decide", permission="approve")
def decide(ctx: Context, input: DecideIn) -> DecideOut:
    """Approve or reject a proposed rule change, with a reason. The proposer never decides their own change
    (FORBIDDEN), nor does someone the proposer invited recently approve it; a change already decided or
    withdrawn is PRECONDITION_FAILED. Approving applies the rule: a limit (`rule`) queues the re-scheduling
    of the working cases it may change (a job run once this call commits; `rescheduled` says how many); an
    authorization requirement (`requirement`) is written to priorAuthorization's requirements and flags the
    claims' lines it matches from then on. Managers and admins; audited (before and after)."""
    decided = service.decide(
        ctx.db,
        input.id,
        approve=input.decision == "approve",
        reason=input.reason,
        user_id=ctx.user_id,
        invited_window_days=ctx.services.settings.sod_invited_window_days,
    )
    applied = decided.applied
    after = service.change_state(decided.change)
    if applied is not None:
        after = {**after, "rule_before": applied.before, "rule_after": applied.after}
    ctx.note("payer_rule_change", decided.change.id, before=decided.before, after=after)
    limit = applied is not None and decided.change.kind == "limit"
    return DecideOut(
        change=_change_out(decided.change),
        rule=RuleOut.model_validate(applied.rule) if applied is not None and limit else None,
        requirement=RequirementOut.model_validate(applied.rule) if applied is not None and not limit else None,
        created=applied is not None and applied.before is None,
        rescheduled=0 if applied is None else applied.rescheduled,
    )


@router.mutation("withdraw", permission="approve")
def withdraw(ctx: Context, input: WithdrawIn) -> ChangeOut:
    """The proposer takes back a proposed rule change (anyone else: FORBIDDEN, reject it with
    payerRules.decide); a decided change is PRECONDITION_FAILED. Audited."""
    change, before = service.withdraw(ctx.db, input.id, user_id=ctx.user_id)
    ctx.note("payer_rule_change", change.id, before=before, after=service.change_state(change))
    return _change_out(change)


@router.query("changes")
def changes(ctx: Context, input: ChangesIn) -> Page[ChangeOut]:
    """Proposed and decided rule changes, newest first; filters: state, kind; paginated."""
    stmt = service.changes_statement(state=input.state, kind=input.kind)
    return paginate(ctx.db, stmt, PayerRuleChange.id, input, _change_out)


@router.query("evaluate")
def evaluate(ctx: Context, input: EvaluateIn) -> EvaluateOut:
    """Which rules apply to a case (`caseId`) or to a claim described by hand (`claim`), and why: the
    payer type (from the claim filing indicator, the payer class, the tenant's payer alias), whether it
    was assumed (an unknown payer gets the shortest common window), a soft denial's corrected-claim
    timely filing instead of an appeal, each deadline's date, source and rule. Unknown case: NOT_FOUND."""
    as_of = input.as_of or client_today(ctx.db)
    c = input.claim
    claim = (
        None
        if c is None
        else service.DescribedClaim(
            payer_class=c.payer_class,
            filing_indicator=c.filing_indicator,
            payer_id=c.payer_id,
            notice_date=c.notice_date,
            service_date=c.service_date,
            soft_denial=c.soft_denial,
        )
    )
    found = service.evaluate(ctx.db, input.case_id, claim)
    return EvaluateOut.model_validate(
        {
            "case_id": found.case_id,
            "payer_type": found.kind.payer_type,
            "payer_class": found.facts.payer_class,
            "filing_indicator": found.facts.filing_indicator,
            "assumed": found.kind.assumed,
            "soft_denial": found.facts.soft_denial,
            "why": found.kind.basis,
            "as_of": as_of,
            "items": service.applied(found.found, as_of),
        }
    )


@router.mutation("upsertAlias", permission="approve")
def upsert_alias(ctx: Context, input: AliasIn) -> AliasOut:
    """Say which payer a spelling is (a payer id or name from the files, compared upper-cased): its
    canonical payer and optionally its payer class (e.g. a Medicaid managed-care plan filed as HM). The
    marts use it at the next build; a payer-id alias queues the re-scheduling of that payer's working cases
    (a job run after this call commits).
    Managers and admins; audited (before and after)."""
    result = service.upsert_alias(
        ctx.db,
        alias_kind=input.alias_kind,
        alias=input.alias,
        canonical_payer_key=input.canonical_payer_key,
        canonical_payer_id=input.canonical_payer_id,
        payer_class=input.payer_class,
    )
    ctx.note("payer_alias", result.row.id, before=result.before, after=service.alias_state(result.row))
    row = result.row
    return AliasOut(
        id=row.id,
        alias_kind=row.alias_kind,
        alias=row.alias,
        canonical_payer_key=row.canonical_payer_key,
        canonical_payer_id=row.canonical_payer_id,
        payer_class=row.payer_class,
        created=result.before is None,
        rescheduled=result.rescheduled,
    )
