"""payerRules.*: appeal and timely-filing limits as data (platform defaults with their citations, a
client's own rules per payer type or payer, effective-dated), which rule applies to a case and why, and
payer aliases. A client's rule changes only through approval: one manager proposes (upsert), another
decides (decide). The same holds for a client's prior-authorization requirements (proposeAuthorization):
approved, they are written to priorAuthorization's requirements (listed, with their versions, by
priorAuthorization.requirements); and for its frequency limits (proposeFrequency: at most N units of a code
per period per patient; listed with their versions and the platform's by frequencyLimits, applied to a
claim by payerApplicability.forClaim). Writes are for managers and admins and are audited."""

from __future__ import annotations

from typing import Any

from api.denials.deadlines.service import client_today
from api.denials.prior_authorization.service import RequirementValues, parse_code
from api.intelligence.payer_rules import service
from api.intelligence.payer_rules.models import PayerFrequencyLimit, PayerRuleChange
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
    FrequencyIn,
    FrequencyLimitOut,
    FrequencyLimitsIn,
    FrequencyLimitsOut,
    ListIn,
    ListOut,
    ProposeAuthorizationOut,
    ProposeFrequencyOut,
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


@router.mutation("proposeFrequency", permission="approve")
def propose_frequency(ctx: Context, input: FrequencyIn) -> ProposeFrequencyOut:
    """Propose the client's own frequency limit: at most `maxUnits` units of a CPT/HCPCS code or code range
    per `period` per patient (day; rolling_days N: the N days ending on the date of service; months N: N full
    months must pass following the month of the last service, as 42 CFR 410.34 counts; calendar_year;
    lifetime), per payer type (payerId `*`) or payer, optionally per plan, from `effectiveFrom` (to
    `effectiveTo`), with its source. Nothing changes until another manager or admin approves it
    (payerRules.decide: separation of duties); then it overrides a less specific limit and the platform's at
    the same specificity, the same scope and date again updates it (version + 1), and a later date is a new
    version closing the one before. A period without its length (or a length for a period without one) or a
    malformed code or range is BAD_REQUEST. Managers and admins; audited."""
    values = service.FrequencyValues(
        payer_type=input.payer_type,
        payer_id=input.payer_id,
        plan=input.plan,
        procedure_codes=input.procedure_codes,
        max_units=input.max_units,
        period=input.period,
        period_length=input.period_length,
        effective_from=input.effective_from,
        effective_to=input.effective_to,
        source=input.source,
    )
    proposed = service.propose_frequency(ctx.db, values, user_id=ctx.user_id)
    ctx.note("payer_rule_change", proposed.change.id, after=service.change_state(proposed.change))
    return ProposeFrequencyOut(
        limit=FrequencyLimitOut.model_validate(proposed.limit),
        created=proposed.created,
        change=_change_out(proposed.change),
    )


@router.query("frequencyLimits")
def frequency_limits(ctx: Context, input: FrequencyLimitsIn) -> FrequencyLimitsOut:
    """Frequency limits by payer x CPT/HCPCS: the client's own, each with its version and its end (its own,
    or the day before its next version starts) (newest first, paginated; filters: payer type, payer id, a
    code they include; written only by an approved payerRules.proposeFrequency), and the platform's matching
    the filters (Medicare's preventive-service limits, 42 CFR 410.15, 410.16, 410.34, 410.37, each with its
    source)."""
    code = None if input.procedure_code is None else parse_code(input.procedure_code)
    stmt = service.frequency_list_statement(payer_type=input.payer_type, payer_id=input.payer_id, procedure_code=code)
    page = paginate(ctx.db, stmt, PayerFrequencyLimit.id, input, lambda row: row)
    items, defaults = service.frequency_listed(ctx.db, page.items, payer_type=input.payer_type, procedure_code=code)
    if input.payer_id not in (None, "*"):
        defaults = []  # the platform's limits are type-wide; a payer filter asks for the client's
    return FrequencyLimitsOut(
        items=[FrequencyLimitOut.model_validate(i) for i in items],
        next_cursor=page.next_cursor,
        defaults=[FrequencyLimitOut.model_validate(d) for d in defaults],
    )


@router.mutation("decide", permission="approve")
def decide(ctx: Context, input: DecideIn) -> DecideOut:
    """Approve or reject a proposed rule change, with a reason. The proposer never decides their own change
    (FORBIDDEN), nor does someone the proposer invited recently approve it; a change already decided or
    withdrawn is PRECONDITION_FAILED. Approving applies the rule: a limit (`rule`) queues the re-scheduling
    of the working cases it may change (a job run once this call commits; `rescheduled` says how many); an
    authorization requirement (`requirement`) is written to priorAuthorization's requirements and flags the
    claims' lines it matches from then on; a frequency limit (`frequencyLimit`) likewise, to payerRules'
    frequency limits. Managers and admins; audited (before and after)."""
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
    written: dict[str, dict[str, Any]] = {} if applied is None else {decided.change.kind: applied.rule}
    return DecideOut(
        change=_change_out(decided.change),
        rule=RuleOut.model_validate(written["limit"]) if "limit" in written else None,
        requirement=RequirementOut.model_validate(written["authorization"]) if "authorization" in written else None,
        frequency_limit=FrequencyLimitOut.model_validate(written["frequency"]) if "frequency" in written else None,
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
