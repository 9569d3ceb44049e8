"""Inputs and outputs of revenueSimulation.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from api.infra.marts.inputs import MonthRange, PayerKey
from api.infra.marts.serving import Money
from api.intelligence.action_taxonomy.catalogue import DenialCategory
from api.intelligence.revenue_simulation.bootstrap import MAX_REPLICATIONS, MAX_SEED
from api.rpc.schema import DbId, Output, Schema

#: at most this many claim x payer rows are simulated (narrow the months or the payer beyond)
MAX_ROWS = 50_000
MAX_LIMIT_DAYS = 730

ASSUMPTION = (
    "The history repeats: a prevented denial would have been paid in full (less what an overturn already "
    "paid back); an extra appeal wins at the payer x category's historical overturn rate; the days from the "
    "payer's denial to its overturn stand in for the days to the appeal. Strategy effects are net of the "
    "cost per appeal."
)
METHOD = (
    "Nonparametric bootstrap over the claim x payer rows (Efron 1979): each replication redraws the rows "
    "with replacement (numpy Generator(PCG64(seed))) and recomputes the effect; the interval is the 2.5th "
    "to 97.5th percentile of the replications. The same seed on the same snapshot gives the same interval."
)


class PreventionScenario(Schema):
    """A share of the denials of one category or one CARC prevented: their denied money is paid instead."""

    kind: Literal["prevention"]
    category: DenialCategory | None = Field(default=None, description="Denial category (give it or carc)")
    carc: str | None = Field(default=None, pattern=r"^[A-Z]{0,2}\d{1,3}$", description="CARC, e.g. 16 or 197")
    share: float = Field(ge=0, le=1, description="Share of those denials prevented, 0..1")

    @model_validator(mode="after")
    def _one_target(self) -> Self:
        if (self.category is None) == (self.carc is None):
            raise ValueError("give exactly one of category or carc")
        return self


class StrategyScenario(Schema):
    """For a payer x denial category: appeal every unrecovered denial, or write every denial off."""

    kind: Literal["strategy"]
    payer: PayerKey
    category: DenialCategory
    action: Literal["appeal", "write_off"]
    cost_per_appeal: Money | None = Field(
        default=None,
        ge=0,
        le=100_000,
        description="Cost of one appeal; default the first-level appeal's effort x cost per hour (actionTaxonomy)",
    )


class RuleScenario(Schema):
    """A payer's appeal limit shortened to N days: overturns decided later than that are lost."""

    kind: Literal["rule"]
    payer: PayerKey
    appeal_limit_days: int = Field(ge=1, le=MAX_LIMIT_DAYS)


Scenario = Annotated[PreventionScenario | StrategyScenario | RuleScenario, Field(discriminator="kind")]


class SimulateIn(MonthRange):
    """The adjudication months of the history (at most 120), an optional payer narrowing it, the scenario,
    the seed (default: drawn and stored) and the bootstrap replications (100..2000)."""

    payer: PayerKey | None = Field(default=None, description="Only this payer's claims (default: every payer)")
    scenario: Scenario
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
    replications: int = Field(default=1000, ge=100, le=MAX_REPLICATIONS)


class SimulationRef(Schema):
    id: DbId


class SimulationSnapshot(Output):
    id: str = Field(description="The published snapshot's name")
    built_at: datetime
    run_id: str | None


class SimulationOut(Output):
    id: int
    created_at: datetime
    scenario: Scenario
    from_month: str | None
    to_month: str | None
    payer: str | None
    rows: int = Field(description="Claim x payer rows of the history simulated (the bootstrap's units)")
    seed: int
    replications: int
    baseline_revenue: Money = Field(description="What the payers paid on the rows")
    scenario_revenue: Money = Field(description="Baseline + effect")
    effect: Money = Field(description="Scenario - baseline on the history itself")
    effect_low: Money = Field(description="95% bootstrap percentile interval of the effect")
    effect_high: Money
    snapshot: SimulationSnapshot
    assumption: str = ASSUMPTION
    method: str = METHOD
