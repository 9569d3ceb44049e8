"""Payer spellings generated with known truth (this file's own generator: its own spellings and typos,
no code from the matcher): the matcher's suggestions at the review threshold keep precision and recall
above stated floors, and beat exact matching on recall."""

from __future__ import annotations

import random

from api.money.entity_resolution.normalize import payer_name
from api.money.entity_resolution.payers import best_payers

CANONICAL = [
    "AETNA",
    "CIGNA HEALTHCARE",
    "HUMANA",
    "KAISER PERMANENTE",
    "MOLINA HEALTHCARE",
    "CENTENE",
    "WELLCARE HEALTH PLANS",
    "HIGHMARK",
    "TRICARE EAST",
    "NOVITAS SOLUTIONS",
    "PALMETTO GBA",
    "NORIDIAN HEALTHCARE SOLUTIONS",
    "OSCAR HEALTH",
    "AMBETTER",
    "CAREFIRST",
    "GEISINGER HEALTH PLAN",
]
# Other payers, absent from the known list: nothing should be suggested for them (some share a word).
DISTRACTORS = ["AETNA BETTER HEALTH OF OHIO", "MEDICAL MUTUAL", "PRIORITY HEALTH", "EMBLEMHEALTH", "SELECTHEALTH"]

FLOOR_PRECISION = 0.9
FLOOR_RECALL = 0.85


def _variant(name: str, draw: random.Random) -> str:
    """A spelling a file might carry: case, punctuation, a legal suffix, one typo, a double space."""
    text = name.title() if draw.random() < 0.5 else name
    roll = draw.random()
    if roll < 0.25:
        text += draw.choice([", Inc.", " Inc", " Corp.", " Company"])
    elif roll < 0.5 and len(text) > 6:
        i = draw.randrange(1, len(text) - 1)
        text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]  # two adjacent letters swapped
    elif roll < 0.7:
        text = text.replace(" ", "  ", 1) + "."
    return text


def test_suggestions_at_the_review_threshold_meet_the_floors():
    draw = random.Random(20261128)
    truth = {}
    for name in CANONICAL:
        for _ in range(4):
            spelling = _variant(name, draw)
            if spelling.strip().upper() != name:
                truth[spelling] = name
    spellings = sorted(truth) + DISTRACTORS
    known = {payer_name(c): c for c in CANONICAL}
    found = {c.spelling: c.suggested_payer for c in best_payers(spellings, known)}
    correct = sum(1 for s, p in found.items() if truth.get(s) == p)
    precision, recall = correct / max(len(found), 1), correct / len(truth)
    # the naive baseline: a spelling is a payer only when it equals it upper-cased and trimmed
    exact = sum(1 for s, p in truth.items() if s.strip().upper() == p)
    assert precision >= FLOOR_PRECISION, (precision, found)
    assert recall >= FLOOR_RECALL, (recall, sorted(set(truth) - set(found)))
    assert recall > exact / len(truth)
    assert not set(DISTRACTORS) & set(found)
