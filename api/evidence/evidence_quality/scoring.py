"""Completeness, strength and gaps of a case's evidence (pure, no I/O).

Inputs are the case's active documents as (doc_type, text_chars) pairs and the requirement of its
denial category (`requirements.py`).

- **completeness** = required types present / required types (1.0 when nothing is required).
- **quality of one document**: 1.0 with a text layer of at least `FULL_TEXT_CHARS` characters,
  0.75 with less text, 0.5 with none (an image or a scan without OCR: a reviewer can read it, but
  nothing can be checked or quoted automatically).
- **strength** = required part x (0.8 + 0.2 x recommended coverage), where the required part is
  the mean, over required types, of the best quality among the documents of that type (0 when
  missing), and recommended coverage is the share of recommended types present (1.0 when none is
  recommended). So strength is in [0, 1], is 0 without any required document, reaches 0.8 with
  every required type as a full-text document, and 1.0 only with the recommended types too.
  Rounded to three decimals.
- **gaps**: one per missing required type (`missing`), per required type held only as documents
  without text (`weak`), and per missing recommended type (`recommended`), each with a sentence.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from api.evidence.evidence_quality.requirements import GAP_SENTENCES, Requirement

FULL_TEXT_CHARS = 200


@dataclass(frozen=True)
class Score:
    required: tuple[str, ...]
    recommended: tuple[str, ...]
    present: tuple[str, ...]
    missing: tuple[str, ...]
    completeness: float
    strength: float


@dataclass(frozen=True)
class Gap:
    doc_type: str
    kind: str  # missing | weak | recommended
    message: str


def document_quality(text_chars: int) -> float:
    if text_chars >= FULL_TEXT_CHARS:
        return 1.0
    return 0.75 if text_chars > 0 else 0.5


def _best(documents: Iterable[tuple[str, int]]) -> dict[str, float]:
    best: dict[str, float] = {}
    for doc_type, text_chars in documents:
        best[doc_type] = max(best.get(doc_type, 0.0), document_quality(text_chars))
    return best


def score(requirement: Requirement, documents: Iterable[tuple[str, int]]) -> Score:
    best = _best(documents)
    required = requirement.required
    missing = tuple(t for t in required if t not in best)
    completeness = 1.0 if not required else (len(required) - len(missing)) / len(required)
    required_part = 1.0 if not required else sum(best.get(t, 0.0) for t in required) / len(required)
    recommended = requirement.recommended
    coverage = 1.0 if not recommended else sum(1 for t in recommended if t in best) / len(recommended)
    return Score(
        required=required,
        recommended=recommended,
        present=tuple(sorted(best)),
        missing=missing,
        completeness=round(completeness, 3),
        strength=round(required_part * (0.8 + 0.2 * coverage), 3),
    )


def gaps(requirement: Requirement, documents: Iterable[tuple[str, int]]) -> list[Gap]:
    best = _best(documents)
    found: list[Gap] = []
    for doc_type in requirement.required:
        if doc_type not in best:
            found.append(Gap(doc_type, "missing", GAP_SENTENCES[doc_type]))
        elif best[doc_type] < document_quality(1):
            found.append(
                Gap(
                    doc_type,
                    "weak",
                    f"The {doc_type.replace('_', ' ')} on file have no readable text (an image or a scan); "
                    "attach a text copy or a searchable PDF.",
                )
            )
    for doc_type in requirement.recommended:
        if doc_type not in best:
            found.append(Gap(doc_type, "recommended", "Recommended: " + GAP_SENTENCES[doc_type]))
    return found
