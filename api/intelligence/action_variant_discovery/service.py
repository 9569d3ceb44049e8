"""Discovering appeal letter variants that do better, payer by payer, with a sequential test that
controls false discoveries (`plan` for the grouping, looks and multiplicity; `sequential` for the test).

Data: the decided appeals whose letter is known (appealAssembly's
`decided_appeals_by_template`: the packet the decision was recorded through, else the case's latest
packet of that level submitted by the decision day). Success = won or partially won (HFMA MAP Keys'
overturn rate counts both); withdrawn appeals were never decided and count for neither. Only letters
that are the template's own (letter source 'template') identify a variant: a custom or drafted letter
enclosed in a packet is not the template's letter, so those appeals are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session

from api.denials.appeal_assembly import service as appeal_assembly
from api.intelligence.action_variant_discovery import plan
from api.intelligence.action_variant_discovery.sequential import VariantArm, VariantComparison, compare

#: Decided appeals read per call, in recording order (the first ones: the looks use arm prefixes).
APPEALS_READ_CAP = 50_000

Verdict = Literal["challenger better", "incumbent better", "keep collecting", "no difference detected"]
_VERDICTS: dict[str, Verdict] = {
    "a_better": "challenger better",
    "b_better": "incumbent better",
    "continue": "keep collecting",
    "no_difference_at_final_look": "no difference detected",
}


@dataclass(frozen=True)
class Arm:
    template_key: str
    template_version: str
    decided: int  # all decided appeals of the variant read
    n: int  # those the look uses (its first look x min_per_arm)
    successes: int


@dataclass(frozen=True)
class Item:
    payer: str
    category: str | None
    incumbent: Arm
    challenger: Arm
    comparison: VariantComparison  # A = challenger, B = incumbent
    alpha_for_comparison: float
    verdict: Verdict


@dataclass(frozen=True)
class Discovery:
    items: list[Item]
    total_items: int  # before the limit
    family_size: int  # comparisons sharing alpha (Bonferroni)
    waiting: (
        int  # pairs (of the payer asked for) whose smaller arm has fewer than min_per_arm outcomes (not tested yet)
    )
    appeals_read: int
    truncated: bool  # more decided appeals than APPEALS_READ_CAP: only the first were read


def _label(variant: plan.Variant) -> str:
    return f"{variant[0]} v{variant[1]}"


def discover(
    db: Session,
    *,
    payer: str | None,
    category: str | None,
    min_per_arm: int,
    max_looks: int,
    alpha: float,
    limit: int,
) -> Discovery:
    """Each payer's challenger letter variants against its incumbent (the most used), at the look their
    data have reached; the family (for Bonferroni) is every pair of the client in the category scope,
    whatever `payer` filters the answer to."""
    rows = appeal_assembly.decided_appeals_by_template(db, denial_category=category, limit=APPEALS_READ_CAP + 1)
    truncated = len(rows) > APPEALS_READ_CAP
    rows = rows[:APPEALS_READ_CAP]
    outcomes = [
        plan.Outcome(r.payer, (r.template_key, r.template_version), r.overturned)
        for r in rows
        if r.letter_source == "template"
    ]
    pairs = plan.pairs(outcomes)
    each_alpha = plan.comparison_alpha(alpha, len(pairs))
    items: list[Item] = []
    waiting = 0
    for pair in pairs:
        if payer is not None and pair.payer != payer:
            continue
        look = plan.look_of(
            len(pair.incumbent_outcomes), len(pair.challenger_outcomes), min_per_arm=min_per_arm, max_looks=max_looks
        )
        if look == 0:
            waiting += 1
            continue
        used = look * min_per_arm
        incumbent, challenger = pair.incumbent_outcomes[:used], pair.challenger_outcomes[:used]
        comparison = compare(
            VariantArm(_label(pair.challenger), used, sum(challenger)),
            VariantArm(_label(pair.incumbent), used, sum(incumbent)),
            look=look,
            max_looks=max_looks,
            alpha=each_alpha,
        )
        items.append(
            Item(
                payer=pair.payer,
                category=category,
                incumbent=Arm(*pair.incumbent, len(pair.incumbent_outcomes), used, sum(incumbent)),
                challenger=Arm(*pair.challenger, len(pair.challenger_outcomes), used, sum(challenger)),
                comparison=comparison,
                alpha_for_comparison=each_alpha,
                verdict=_VERDICTS[comparison.decision],
            )
        )
    return Discovery(
        items=items[:limit],
        total_items=len(items),
        family_size=len(pairs),
        waiting=waiting,
        appeals_read=len(rows),
        truncated=truncated,
    )
