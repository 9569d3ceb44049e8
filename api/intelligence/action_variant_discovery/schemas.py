"""Inputs and outputs of actionVariantDiscovery.*."""

from __future__ import annotations

from pydantic import Field

from api.intelligence.action_variant_discovery.sequential import MAX_LOOKS_CAP
from api.rpc.schema import Output, Schema


class DiscoverIn(Schema):
    payer_key: str | None = Field(
        default=None, min_length=1, max_length=200, description="Only this payer's comparisons"
    )
    category: str | None = Field(
        default=None, min_length=1, max_length=40, description="Only appeals of this denial category (else all pooled)"
    )
    min_per_arm: int = Field(
        default=30, ge=5, le=1000, description="Outcomes per arm in each block; one look per completed block"
    )
    max_looks: int = Field(default=10, ge=1, le=MAX_LOOKS_CAP, description="Looks the design allows per comparison")
    alpha: float = Field(default=0.05, gt=0, le=0.2, description="Chance of any false 'better' over all comparisons")
    limit: int = Field(default=50, ge=1, le=200, description="Items answered (max 200)")


class VariantOut(Output):
    template_key: str
    template_version: str
    decided: int = Field(description="Decided appeals of the variant read (the look may use fewer)")
    n: int = Field(description="Appeals this look uses: the variant's first look x minPerArm")
    successes: int = Field(description="Won or partially won among them")
    rate: float
    ci_low: float = Field(description="95% Wilson interval")
    ci_high: float


class VariantComparisonOut(Output):
    payer_key: str
    category: str | None
    incumbent: VariantOut
    challenger: VariantOut
    difference: float = Field(description="challenger rate - incumbent rate")
    difference_low: float = Field(description="95% Newcombe interval")
    difference_high: float
    adjusted_difference_low: float = Field(description="Newcombe interval valid over all looks and comparisons")
    adjusted_difference_high: float
    look: int
    max_looks: int
    boundary: float = Field(description="|z| must reach this at this look")
    z: float = Field(description="Pooled two-proportion z, positive when the challenger does better")
    p_value: float = Field(description="Nominal two-sided p-value of this look alone")
    alpha_for_comparison: float = Field(description="alpha / comparisons in the family (Bonferroni)")
    decision: str = Field(
        description="challenger better | incumbent better | keep collecting | no difference detected (final look)"
    )
    statement: str


class DiscoverOut(Output):
    items: list[VariantComparisonOut]
    total_items: int = Field(description="Comparisons tested before the limit")
    comparisons_in_family: int = Field(description="Challenger-incumbent pairs sharing alpha (all payers in scope)")
    waiting: int = Field(description="Pairs not tested yet: the smaller arm has fewer than minPerArm outcomes")
    appeals_read: int
    truncated: bool = Field(description="More decided appeals than the cap: only the first were read")
