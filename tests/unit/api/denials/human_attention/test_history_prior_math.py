"""The remittance-history prior of P(overturn), numbers worked by hand (the conjugate Beta-binomial
update three times: client, payer, payer x category; see history_prior.py)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from api.denials.human_attention.estimate import HISTORY_LEVEL, Counts, fit
from api.denials.human_attention.history_prior import MAX_SEED_STRENGTH, HistoryPrior, capped, posterior

A, B = "HAND PRIOR PAYER A", "HAND PRIOR PAYER B"
X = "medical_necessity"
# Payer A overturned 2 of its 3 category-X denials, payer B 0 of 2.
HAND = {(A, X): (3, 2), (B, X): (2, 0)}


def test_the_hand_history_gives_the_hand_worked_seeds():
    prior = HistoryPrior(HAND)
    # client: Beta(1, 1) + 2 of 5 -> 3/7. Payer A: (10 x 3/7 + 2) / (10 + 3) = 44/91;
    # A x X: (10 x 44/91 + 2) / 13 = 622/1183, a + b = 13 (under the cap of 20).
    a = prior.seed(A, X)
    assert a is not None
    assert math.isclose(a.mean, 622 / 1183, rel_tol=1e-12)
    assert math.isclose(a.strength, 13.0)
    assert (a.n, a.k, a.payer_n, a.payer_k, a.client_n, a.client_k) == (3, 2, 3, 2, 5, 2)
    # Payer B: (10 x 3/7 + 0) / 12 = 5/14; B x X: (10 x 5/14 + 0) / 12 = 25/84, a + b = 12.
    b = prior.seed(B, X)
    assert b is not None
    assert math.isclose(b.mean, 25 / 84, rel_tol=1e-12)
    assert math.isclose(b.strength, 12.0)
    # A payer never seen: the client's rate 3/7 with the category strength 10; a category payer A never
    # denied: payer A's rate 44/91.
    unseen = prior.seed("NEW PAYER", X)
    assert unseen is not None and math.isclose(unseen.mean, 3 / 7) and math.isclose(unseen.strength, 10.0)
    other = prior.seed(A, "coding")
    assert other is not None and math.isclose(other.mean, 44 / 91)
    assert a.describe() == (
        "payer history: 2 overturns of 3 denials for HAND PRIOR PAYER A x medical_necessity"
        " (2 of 3 for the payer, 2 of 5 for the client)"
    )


def test_the_payer_is_matched_without_case_or_spaces():
    prior = HistoryPrior(HAND)
    assert prior.seed(" hand prior payer a ", X) == prior.seed(A, X)


def test_an_empty_history_seeds_nothing():
    assert HistoryPrior({}).seed(A, X) is None
    assert HistoryPrior({}).empty


def test_a_long_history_is_capped_at_twenty_pseudo_counts_with_its_mean_kept():
    # 149 denials, 49 overturned, one payer, one category: client (1 + 49) / (2 + 149) = 50/151; the
    # payer (10 x 50/151 + 49) / 159; the cell the same way; a + b = 159 -> scaled to 20.
    prior = HistoryPrior({("HAND PAYER", "coding"): (149, 49)})
    seed = prior.seed("HAND PAYER", "coding")
    assert seed is not None
    client = 50 / 151
    payer = (10 * client + 49) / 159
    cell = (10 * payer + 49) / 159
    assert math.isclose(seed.mean, cell, rel_tol=1e-12)
    assert math.isclose(seed.strength, MAX_SEED_STRENGTH)


def test_recorded_outcomes_update_the_seed_by_the_conjugate_rule():
    # Payer B's seed Beta(50/14, 118/14) (mean 25/84, a + b = 12); 3 recorded outcomes, 2 won:
    # Beta(50/14 + 2, 118/14 + 1), mean (50/14 + 2) / 15 = 78/210.
    model = fit({(B, X, "50"): Counts(3, 2)}, HistoryPrior(HAND))
    est = model.estimate(B, X, "50")
    assert [f.level for f in est.levels] == [
        "global",
        "category",
        HISTORY_LEVEL,
        "payer_category",
        "payer_category_carc",
    ]
    cell = est.levels[3]
    assert (cell.n, cell.k) == (3, 2)
    assert math.isclose(cell.mean, 78 / 210, rel_tol=1e-12)
    assert est.outcomes == 3 and est.seed is not None and est.seed.payer == B
    # No outcome for payer A: its payer x category level is the seed itself (and so is the CARC level's
    # mean, a CARC cell without data keeping its parent's mean).
    a = model.estimate(A, X, "50")
    assert math.isclose(a.levels[3].mean, 622 / 1183, rel_tol=1e-12)
    assert math.isclose(a.mean, 622 / 1183, rel_tol=1e-9)


def test_without_history_the_model_is_the_outcome_hierarchy_unchanged():
    counts = {(B, X, "50"): Counts(3, 2)}
    assert fit(counts, HistoryPrior({})).estimate(B, X, "50") == fit(counts).estimate(B, X, "50")


counts = st.integers(min_value=0, max_value=400)


@st.composite
def histories(draw):
    cells = {}
    for payer in draw(st.lists(st.sampled_from(["P1", "P2", "P3"]), min_size=1, max_size=3, unique=True)):
        for category in draw(st.lists(st.sampled_from(["coding", "eligibility", ""]), min_size=1, unique=True)):
            n = draw(counts)
            cells[(payer, category)] = (n, draw(st.integers(0, n)))
    return cells


@given(histories(), st.sampled_from(["P1", "P2", "P4"]), st.sampled_from(["coding", "eligibility", "", "x"]))
def test_every_seed_is_a_proper_beta_with_a_mean_in_0_1(history, payer, category):
    seed = HistoryPrior(history).seed(payer, category)
    if sum(n for n, _ in history.values()) == 0:
        assert seed is None
        return
    assert seed is not None
    assert seed.alpha > 0 and seed.beta > 0
    assert 0.0 < seed.mean < 1.0
    assert seed.strength <= MAX_SEED_STRENGTH + 1e-9


@given(histories(), st.data())
def test_more_overturns_of_the_same_denials_never_lower_the_probability(history, data):
    key = data.draw(st.sampled_from(sorted(history)))
    n, k = history[key]
    if k == n:
        return
    more = dict(history)
    more[key] = (n, k + 1)
    before = HistoryPrior(history).seed(*key)
    after = HistoryPrior(more).seed(*key)
    assert before is not None and after is not None
    assert after.mean >= before.mean - 1e-12


@given(histories(), st.integers(0, 30), st.data())
def test_recorded_outcomes_keep_the_probability_in_0_1_and_wins_never_lower_it(history, n, data):
    k = data.draw(st.integers(0, n))
    payer, category = data.draw(st.sampled_from(sorted(history)))
    prior = HistoryPrior(history)
    p = fit({(payer, category, "50"): Counts(n, k)}, prior).estimate(payer, category, "50").mean
    assert 0.0 <= p <= 1.0
    if k < n:
        more = fit({(payer, category, "50"): Counts(n, k + 1)}, prior).estimate(payer, category, "50").mean
        assert more >= p - 1e-12


def test_the_conjugate_update_and_the_cap_by_hand():
    assert posterior(0.5, 10.0, 2, 3) == (7.0, 6.0)
    assert capped(30.0, 10.0) == (15.0, 5.0)
    assert capped(3.0, 1.0) == (3.0, 1.0)
