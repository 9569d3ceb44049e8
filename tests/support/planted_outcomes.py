"""A planted corpus of appeal decisions: known overturn rates by payer and category.

Independent of the estimator on purpose (its own seed, constants and counting): the calibration tests
check the estimator against these rates, so nothing here may come from api/denials/human_attention.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

PAYERS: tuple[str, ...] = ("ACME HEALTH", "BLUEPEAK MUTUAL", "CEDAR CARE", "DELTA PLAN", "EVERGREEN", "FAIRVIEW")
CATEGORIES: tuple[str, ...] = ("authorization", "coding", "medical_necessity", "eligibility")
CARCS: dict[str, tuple[str, ...]] = {
    "authorization": ("197", "15"),
    "coding": ("16", "4"),
    "medical_necessity": ("50",),
    "eligibility": ("27", "31", "200"),
}
# Rows: payers in PAYERS order; columns: CATEGORIES order. Wide on purpose (0.08-0.82).
PLANTED_RATES: dict[tuple[str, str], float] = {
    (payer, category): rate
    for payer, row in zip(
        PAYERS,
        (
            (0.55, 0.70, 0.30, 0.62),
            (0.40, 0.65, 0.18, 0.50),
            (0.72, 0.82, 0.45, 0.75),
            (0.25, 0.48, 0.08, 0.35),
            (0.60, 0.58, 0.38, 0.70),
            (0.33, 0.77, 0.22, 0.44),
        ),
        strict=True,
    )
    for category, rate in zip(CATEGORIES, row, strict=True)
}
WITHDRAWN_SHARE = 0.05
PARTIAL_SHARE_OF_WINS = 0.25


@dataclass(frozen=True)
class PlantedOutcome:
    payer: str
    category: str
    carc: str
    decision: str  # won | partially_won | lost | withdrawn


def planted_outcomes(seed: int, per_cell: tuple[int, int] = (150, 400)) -> list[PlantedOutcome]:
    """Between per_cell[0] and per_cell[1] decisions per payer x category, CARCs drawn uniformly within
    the category (they carry no signal of their own), each overturned with the planted rate."""
    rng = random.Random(seed)
    out = []
    for (payer, category), rate in PLANTED_RATES.items():
        for _ in range(rng.randint(*per_cell)):
            carc = rng.choice(CARCS[category])
            if rng.random() < WITHDRAWN_SHARE:
                decision = "withdrawn"
            elif rng.random() < rate:
                decision = "partially_won" if rng.random() < PARTIAL_SHARE_OF_WINS else "won"
            else:
                decision = "lost"
            out.append(PlantedOutcome(payer, category, carc, decision))
    return out


def cell_counts(outcomes: list[PlantedOutcome]) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(payer, category, CARC) -> (decided, overturned), counted here independently of the service."""
    decided = Counter((o.payer, o.category, o.carc) for o in outcomes if o.decision != "withdrawn")
    won = Counter((o.payer, o.category, o.carc) for o in outcomes if o.decision in ("won", "partially_won"))
    return {cell: (n, won[cell]) for cell, n in decided.items()}
