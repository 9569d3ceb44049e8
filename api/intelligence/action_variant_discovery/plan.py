"""How decided appeals become sequential comparisons (pure, no I/O): arms per payer x letter variant,
the incumbent, the look, and the share of alpha each comparison gets.

* Arms. A variant is the (template key, template version) of the letter sent. Each arm keeps its
  outcomes in recording order (outcome id: outcomes are never updated or deleted), so an arm's first n
  outcomes never change once recorded.
* Incumbent. A payer's most used variant (most decided appeals; ties to the smallest key, version).
  The choice looks at counts only, never at successes, so it does not pick the pair that happens to
  differ (the test's null distribution is unchanged).
* Look. look = min(max_looks, floor(min(n_incumbent, n_challenger) / min_per_arm)): the number of
  completed blocks of `min_per_arm` outcomes in the smaller arm. At look k each arm contributes exactly
  its first k x min_per_arm outcomes (a group sequential design with equal groups, Pocock 1977;
  Jennison & Turnbull 2000, ch. 1). Because the prefixes never change, asking again between two block
  boundaries answers the very same test, so however often `discover` is called a comparison is tested
  on at most max_looks distinct data sets: exactly what the Bonferroni-over-looks boundary of
  `sequential.compare` assumes (its union bound covers max_looks tests). Using every outcome so far
  at each call would test a new data set on every call and break that guarantee (Armitage, McPherson &
  Rowe 1969). After look max_looks the comparison is final and later outcomes are not read.
* Many comparisons. Bonferroni across comparisons (Dunn 1961): each of the m comparisons in the family
  is run at alpha / m (so its look boundary is Phi^-1(1 - alpha / (2 m max_looks))); the chance of any
  false "better" among all comparisons and all looks is at most m x max_looks x alpha / (m x max_looks)
  = alpha (family-wise error, which bounds the false discovery rate too). Chosen over Benjamini-Hochberg
  (1995) because the comparisons of one payer share the incumbent's arm (correlated tests; BH needs
  independence or positive regression dependence, Benjamini & Yekutieli 2001) and because it composes
  with the sequential union bound without a p-value for a stopped test. The family is every
  challenger-incumbent pair of the client in the scope (category), tested yet or not, whatever payer
  filter the caller gives: asking payer by payer cannot loosen the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Variant = tuple[str, str]  # (template key, template version)


@dataclass(frozen=True)
class Outcome:
    """One decided appeal: the payer, the letter variant sent, and whether the payer overturned."""

    payer: str
    variant: Variant
    success: bool


@dataclass(frozen=True)
class Pair:
    """A challenger against its payer's incumbent, each arm's outcomes in recording order."""

    payer: str
    incumbent: Variant
    challenger: Variant
    incumbent_outcomes: tuple[bool, ...]
    challenger_outcomes: tuple[bool, ...]


def arms_by_payer(outcomes: Iterable[Outcome]) -> dict[str, dict[Variant, list[bool]]]:
    """payer -> variant -> successes in the given (recording) order."""
    arms: dict[str, dict[Variant, list[bool]]] = {}
    for o in outcomes:
        arms.setdefault(o.payer, {}).setdefault(o.variant, []).append(o.success)
    return arms


def incumbent_of(arms: dict[Variant, list[bool]]) -> Variant:
    """The most used variant; ties to the smallest (key, version)."""
    return min(arms, key=lambda v: (-len(arms[v]), v))


def pairs(outcomes: Iterable[Outcome]) -> list[Pair]:
    """Every challenger against its payer's incumbent, payers with at least two variants only; by payer,
    then by challenger from most to least used (ties by key, version)."""
    found: list[Pair] = []
    for payer, arms in sorted(arms_by_payer(outcomes).items()):
        if len(arms) < 2:
            continue
        incumbent = incumbent_of(arms)
        challengers = sorted((v for v in arms if v != incumbent), key=lambda v: (-len(arms[v]), v))
        found.extend(Pair(payer, incumbent, c, tuple(arms[incumbent]), tuple(arms[c])) for c in challengers)
    return found


def look_of(n_incumbent: int, n_challenger: int, *, min_per_arm: int, max_looks: int) -> int:
    """Completed blocks of min_per_arm outcomes in the smaller arm, at most max_looks (0: not yet)."""
    if min_per_arm < 1 or max_looks < 1:
        raise ValueError("min_per_arm and max_looks must be at least 1")
    return min(max_looks, min(n_incumbent, n_challenger) // min_per_arm)


def comparison_alpha(alpha: float, family_size: int) -> float:
    """Bonferroni: each of the family's comparisons is run at alpha / family size."""
    return alpha / max(1, family_size)
