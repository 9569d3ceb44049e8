"""actionSelection: the actions of the client's taxonomy that apply to one case, ranked by expected value
(``value.py``). Reads only; never commits.

P(success) of the actions that ask the payer to reverse its denial is the worklist's posterior of
P(overturn) for the case's payer x category (``human_attention.service.fit_model``: the
``history_prior`` seed updated by recorded appeal decisions), so this ranking and the worklist agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy.orm import Session

from api.denials.cases import service as cases
from api.denials.human_attention import service as attention
from api.intelligence.action_selection import value
from api.intelligence.action_taxonomy import catalogue
from api.intelligence.action_taxonomy import service as taxonomy

PAYER_CATEGORY_LEVEL = "payer_category"


@dataclass(frozen=True)
class Posterior:
    """The payer x category posterior of P(overturn) and what it rests on."""

    probability: value.Probability
    history_denials: int  # the payer x category's denials in the remittance history (the seed)
    history_overturns: int
    recorded_decisions: int  # appeal decisions recorded in the cell
    recorded_overturns: int


@dataclass(frozen=True)
class RankedAction:
    action: taxonomy.Action
    valued: value.Valued
    evidence: value.Evidence
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Ranking:
    case_id: int
    payer: str
    category: str
    amount_at_stake: Decimal
    posterior: Posterior
    items: tuple[RankedAction, ...]


def payer_category_posterior(db: Session, payer: str, category: str | None) -> Posterior:
    """The worklist's payer x category posterior of P(overturn) (its 95 % credible interval included)."""
    estimate = attention.estimate_for(attention.fit_model(db), payer, category, None)
    level = next(fit for fit in estimate.levels if fit.level == PAYER_CATEGORY_LEVEL)
    seed = estimate.seed
    history_n, history_k = (seed.n, seed.k) if seed is not None else (0, 0)
    p = value.beta_probability(level.alpha, level.beta, history_n + level.n)
    return Posterior(p, history_n, history_k, level.n, level.k)


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _probability_reason(evidence: value.Evidence, post: Posterior, payer: str, category: str) -> str:
    if evidence == "certain_nothing":
        return "A write-off recovers nothing, for certain: its expected value is minus its effort cost."
    if evidence == "none":
        return (
            "No outcome of this kind of action is recorded on the platform yet: P(success) is the uninformed"
            " Beta(1, 1) prior (50.0%, 95% interval 2.5% to 97.5%), resting on 0 observations."
        )
    p = post.probability
    return (
        f"P(success) {_pct(p.mean)} (95% credible interval {_pct(p.low)} to {_pct(p.high)}) is the worklist's"
        f" Beta-binomial posterior of P(overturn) for {payer} x {category}: {post.history_overturns} overturns of"
        f" {post.history_denials} denials in the payer's remittance history and {post.recorded_overturns} of"
        f" {post.recorded_decisions} recorded appeal decisions."
    )


def _value_of(action: taxonomy.Action, post: Posterior, amount: Decimal, payer: str, category: str) -> RankedAction:
    evidence = value.evidence_of(action.kind)
    if evidence == "payer_category":
        p, at = post.probability, amount
    elif evidence == "none":
        p, at = value.beta_probability(*value.UNINFORMED, 0), amount
    else:
        p, at = value.CERTAIN, Decimal("0.00")
    cost = catalogue.effort_cost(action.effort_hours)
    valued = value.value(action.key, p, at, cost)
    effort = f"Effort {action.effort_hours:g} hours x {catalogue.COST_PER_HOUR:.2f} per hour = {cost:.2f}" + (
        f" ({action.effort_rationale})." if action.effort_rationale else " (the client's own figure)."
    )
    arithmetic = (
        f"Expected value {p.mean:.4f} x {at:.2f} - {cost:.2f} = {valued.expected_value:.2f}"
        f" (95% interval {valued.expected_low:.2f} to {valued.expected_high:.2f})."
    )
    reasons = (_probability_reason(evidence, post, payer, category), effort, arithmetic)
    return RankedAction(action, valued, evidence, reasons)


def rank(db: Session, case_id: int) -> Ranking:
    """The active actions that apply to the case's denial category, highest expected value first.
    Another client's case is NOT_FOUND."""
    case = cases.get_case(db, case_id)
    category = case.denial_category or "other"
    amount = attention.at_stake(case.amount_at_stake, case.recovered_amount)
    post = payer_category_posterior(db, case.payer, case.denial_category)
    actions = taxonomy.applicable(taxonomy.vocabulary(db), category)
    valued = {a.key: _value_of(a, post, amount, case.payer, category) for a in actions}
    order = value.ranked([v.valued for v in valued.values()])
    return Ranking(case.id, case.payer, category, amount, post, tuple(valued[v.key] for v in order))
