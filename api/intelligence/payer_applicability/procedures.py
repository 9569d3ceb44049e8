"""payerApplicability.*: which payer rules apply to a claim and why."""

from __future__ import annotations

from dataclasses import asdict

from api.denials.deadlines.service import client_today
from api.intelligence.payer_applicability import service
from api.intelligence.payer_applicability.applicability import Applied
from api.intelligence.payer_applicability.schemas import (
    AppliedRuleOut,
    ClaimFactsOut,
    ForClaimIn,
    ForClaimOut,
    LimitOut,
    LineOut,
    PayerFactOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("payerApplicability")


def _rule_out(rule: Applied, as_of_days: int) -> AppliedRuleOut:
    limit = rule.limit
    return AppliedRuleOut.model_validate(
        {
            **asdict(rule),
            "limit": None
            if limit is None
            else LimitOut.model_validate({**asdict(limit), "days_left": limit.due_on.toordinal() - as_of_days}),
        }
    )


@router.query("forClaim")
def for_claim(ctx: Context, input: ForClaimIn) -> ForClaimOut:
    """Which rules apply to a claim and why: its appeal and timely-filing limits, computed by the engine
    the deadlines use from the facts its deadlines use (its working denial case's, else the claim's own:
    filing indicator, payer class, the tenant's payer alias, dates), each with its scope (client or
    platform, payer-specific or type-wide), the date it is in force from, its source and the claim facts
    that selected it; and the payer's facts in force on `asOf` (payerKnowledge: appeal address,
    portal, ...); and each line's prior-authorization requirement (priorAuthorization's choice: scope,
    dates, source, version) with whether the claim's authorizations cover it; and each line's frequency limit
    (payerRules': at most N units per period per patient) with its window and the patient's earlier services
    counted in it (other claims of the same patient reference: dates, units, claim keys) and whether the line
    exceeds it (`lines` says, for every line, which requirement and limit apply or that none does). Another
    client's or an unknown claim: NOT_FOUND."""
    as_of = input.as_of or client_today(ctx.db)
    found = service.for_claim(ctx.db, input.claim_id, as_of)
    subject, facts = found.subject, found.subject.facts
    return ForClaimOut(
        claim_id=subject.claim_id,
        as_of=as_of,
        facts=ClaimFactsOut(
            case_id=subject.case_id,
            payer_id=found.payer_key,
            payer_type=subject.kind.payer_type,
            payer_class=facts.payer_class,
            filing_indicator=facts.filing_indicator,
            assumed=subject.kind.assumed,
            why=subject.kind.basis,
            notice_date=facts.notice_date,
            service_date=facts.service_date,
            soft_denial=facts.soft_denial,
        ),
        rules=[_rule_out(rule, as_of.toordinal()) for rule in found.applied],
        payer_facts=[PayerFactOut.model_validate(f) for f in found.payer_facts],
        lines=[LineOut.model_validate(asdict(line)) for line in found.lines],
    )
