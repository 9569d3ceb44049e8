"""actionVariantDiscovery.*: appeal letter variants that do better, payer by payer."""

from __future__ import annotations

from api.intelligence.action_variant_discovery import service
from api.intelligence.action_variant_discovery.schemas import (
    DiscoverIn,
    DiscoverOut,
    VariantComparisonOut,
    VariantOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("actionVariantDiscovery")


def _variant(arm: service.Arm, rate: float, low: float, high: float) -> VariantOut:
    return VariantOut(
        template_key=arm.template_key,
        template_version=arm.template_version,
        decided=arm.decided,
        n=arm.n,
        successes=arm.successes,
        rate=rate,
        ci_low=low,
        ci_high=high,
    )


def _item(item: service.Item) -> VariantComparisonOut:
    c = item.comparison
    return VariantComparisonOut(
        payer_key=item.payer,
        category=item.category,
        incumbent=_variant(item.incumbent, c.rate_b, c.rate_b_low, c.rate_b_high),
        challenger=_variant(item.challenger, c.rate_a, c.rate_a_low, c.rate_a_high),
        difference=c.difference,
        difference_low=c.difference_low,
        difference_high=c.difference_high,
        adjusted_difference_low=c.adjusted_difference_low,
        adjusted_difference_high=c.adjusted_difference_high,
        look=c.look,
        max_looks=c.max_looks,
        boundary=c.boundary,
        z=c.z,
        p_value=c.p_value,
        alpha_for_comparison=item.alpha_for_comparison,
        decision=item.verdict,
        statement=c.statement,
    )


@router.query("discover")
def discover(ctx: Context, input: DiscoverIn) -> DiscoverOut:
    """Appeal letter variants (template key x version of the packet sent) that do better, payer by payer:
    each variant against the payer's most used one (the incumbent), success = won or partially won. A
    comparison's look is the number of completed blocks of minPerArm outcomes in its smaller arm (at most
    maxLooks), each arm using exactly its first look x minPerArm outcomes in recording order, so repeated
    asking never tests more than maxLooks data sets; its boundary is Bonferroni over maxLooks looks and
    over all comparisons of the client in scope (alpha / (comparisons x maxLooks), two-sided). decision:
    challenger better, incumbent better, keep collecting, or no difference detected at the final look."""
    found = service.discover(
        ctx.db,
        payer=input.payer_key,
        category=input.category,
        min_per_arm=input.min_per_arm,
        max_looks=input.max_looks,
        alpha=input.alpha,
        limit=input.limit,
    )
    return DiscoverOut(
        items=[_item(i) for i in found.items],
        total_items=found.total_items,
        comparisons_in_family=found.family_size,
        waiting=found.waiting,
        appeals_read=found.appeals_read,
        truncated=found.truncated,
    )
