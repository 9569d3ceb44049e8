"""Payer spellings against the client's known payers (pure): each spelling's best-matching canonical payer.

Known payers are the canonical payer keys of the client's aliases and their payer-name spellings; a
spelling is compared with each after `normalize.payer_name`, by `scoring.payer_similarity` (computed
here as two rapidfuzz score matrices, one pass each, rather than a Python call per pair).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from api.money.entity_resolution import normalize
from api.money.entity_resolution.scoring import PAYER_REVIEW


@dataclass(frozen=True)
class PayerCandidate:
    """A spelling seen in the client's files that no alias names, with its best-matching known payer."""

    spelling: str
    suggested_payer: str
    score: float


def best_payers(spellings: list[str], known: dict[str, str], threshold: float = PAYER_REVIEW) -> list[PayerCandidate]:
    """Each spelling's best known payer by `scoring.payer_similarity` (the same mean of token_sort and
    token_set ratios, computed as two matrices), those at or above `threshold`, best first."""
    if not spellings or not known:
        return []
    choices = list(known)
    queries = [normalize.payer_name(s) for s in spellings]
    sort = process.cdist(queries, choices, scorer=fuzz.token_sort_ratio, dtype=np.float64, workers=1)
    token_set = process.cdist(queries, choices, scorer=fuzz.token_set_ratio, dtype=np.float64, workers=1)
    mean = (sort + token_set) / 200.0
    out = []
    for i, spelling in enumerate(spellings):
        if not queries[i]:
            continue
        j = int(np.argmax(mean[i]))
        score = 1.0 if queries[i] == choices[j] else round(float(mean[i][j]), 4)
        if score >= threshold:
            out.append(PayerCandidate(spelling, known[choices[j]], score))
    return sorted(out, key=lambda c: (-c.score, c.spelling))
