"""The outcome model: planted signal vs pure noise, the prior and the time split by hand, validation.

The worlds are generated here, with their own seeded random.Random and their own logic (nothing is
shared with the module under test). Expected numbers are computed on paper in the comments.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.intelligence.outcome_learning.model import (
    MAX_OUTCOMES,
    BetaBinomialPrior,
    Case,
    Outcome,
    TrainedModel,
    fit_prior,
    split_by_time,
    train,
)

PAYERS = ("MEDICARE", "AETNA", "BCBS", "CIGNA", "UHC")
ACTIONS = ("appeal", "peer_to_peer", "corrected_claim")
START = date(2025, 1, 1)


def world(seed: int, n: int, *, signal: bool) -> list[Outcome]:
    """n outcomes over 360 days. signal: logit P(success) = -1.5 + 4 x completeness + 2 x [peer_to_peer]
    (nothing else matters); noise: P(success) = 0.3 whatever the case."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        completeness = rng.random()
        action = rng.choice(ACTIONS)
        if signal:
            logit = -1.5 + 4.0 * completeness + 2.0 * (action == "peer_to_peer")
            p = 1.0 / (1.0 + math.exp(-logit))
        else:
            p = 0.3
        rows.append(
            Outcome(
                decided_on=START + timedelta(days=rng.randrange(360)),
                payer_key=rng.choice(PAYERS),
                payer_class=rng.choice(("commercial", "government")),
                category=rng.choice(("authorization", "coding")),
                carc=rng.choice(("CO-197", "CO-50", "CO-16")),
                rarc=rng.choice((None, "N30", "M127")),
                amount=Decimal(rng.randrange(100, 20_000)),
                age_days_at_action=rng.randrange(200),
                evidence_completeness=completeness,
                appeal_level=rng.randrange(2),
                action=action,
                success=rng.random() < p,
            )
        )
    return rows


def row(day: int, *, payer: str = "MEDICARE", category: str = "authorization", success: bool = False) -> Outcome:
    return Outcome(
        decided_on=START + timedelta(days=day),
        payer_key=payer,
        payer_class="government",
        category=category,
        carc="CO-197",
        rarc=None,
        amount=Decimal("1200.00"),
        age_days_at_action=30 + day,
        evidence_completeness=(day % 5) / 4,
        appeal_level=1,
        action="appeal" if day % 2 else "peer_to_peer",
        success=success,
    )


@pytest.fixture(scope="module")
def planted() -> TrainedModel:
    return train(world(7, 1500, signal=True))


@pytest.fixture(scope="module")
def noise() -> TrainedModel:
    return train(world(11, 1500, signal=False))


# (a) planted signal


def test_planted_signal_beats_the_prior(planted: TrainedModel) -> None:
    assert planted.beats_prior, planted.reason
    assert planted.model_metrics.auc.value > 0.7
    # The prior sees only payer x category, which carry no signal here.
    assert planted.prior_metrics.auc.value < planted.model_metrics.auc.value
    assert planted.brier_difference.high < 0
    assert planted.model_metrics.brier.value < planted.prior_metrics.brier.value
    assert planted.calibrated


def test_planted_signal_metrics_carry_intervals_and_sizes(planted: TrainedModel) -> None:
    held_out = planted.version.held_out_rows
    assert planted.version.trained_rows + held_out == 1500
    for metrics in (planted.model_metrics, planted.prior_metrics):
        assert metrics.n == held_out
        for estimate in (metrics.auc, metrics.brier, metrics.log_loss):
            assert estimate.low <= estimate.value <= estimate.high
        assert metrics.brier.n == held_out
        assert sum(b.count for b in metrics.calibration) == held_out
        assert sum(round(b.observed_rate * b.count) for b in metrics.calibration) == metrics.successes
        for b in metrics.calibration:
            assert b.lower - 1e-12 <= b.mean_predicted <= b.upper + 1e-12  # a mean of equal floats may differ by an ulp
            assert b.observed_low <= b.observed_rate <= b.observed_high
    assert len(planted.model_metrics.calibration) == 10  # continuous predictions: ten non-empty deciles


def test_planted_signal_prediction_is_the_models_and_explained(planted: TrainedModel) -> None:
    case = Case(
        payer_key="MEDICARE",
        payer_class="government",
        category="coding",
        carc="CO-50",
        rarc=None,
        amount=Decimal("5000"),
        age_days_at_action=40,
        evidence_completeness=0.95,
        appeal_level=1,
        action="peer_to_peer",
    )
    good = planted.predict(case)
    bad = planted.predict(replace(case, evidence_completeness=0.05, action="appeal"))
    assert good.source == "model"
    assert good.probability > bad.probability
    assert good.low <= good.high and good.n > 0
    assert 1 <= len(good.contributions) <= 5
    names = [c.feature for c in good.contributions]
    assert "action=peer_to_peer" in names
    assert "evidence_completeness" in names
    pushes = [abs(c.log_odds) for c in good.contributions]
    assert pushes == sorted(pushes, reverse=True)
    assert "uncalibrated logistic" in good.note


def test_unknown_categories_are_ignored_at_predict_time(planted: TrainedModel) -> None:
    case = Case("NEW PAYER", "workers comp", "new category", "CO-999", "N999", Decimal("0"), 0, 0.5, 7, "appeal")
    prediction = planted.predict(case)
    assert 0.0 < prediction.probability < 1.0
    assert not any("NEW PAYER" in c.feature for c in prediction.contributions)


# (b) pure noise


def test_pure_noise_does_not_beat_the_prior(noise: TrainedModel) -> None:
    assert not noise.beats_prior
    assert noise.reason
    prediction = noise.predict(world(99, 1, signal=False)[0])
    assert prediction.source == "prior"
    assert prediction.contributions == ()
    assert prediction.low <= prediction.probability <= prediction.high


# (c) by hand: the prior's posterior mean and the time split


def test_prior_posterior_mean_by_hand() -> None:
    # Training: MEDICARE x authorization 3 successes of 4, AETNA x coding 0 of 1.
    # Base rate m = 3 / 5 = 0.6; strength S = 10, so the prior is Beta(6, 4).
    #   MEDICARE x authorization: Beta(6 + 3, 4 + 1) = Beta(9, 5), mean 9 / 14 = 0.642857...
    #   AETNA x coding:           Beta(6 + 0, 4 + 1) = Beta(6, 5), mean 6 / 11 = 0.545454...
    #   unseen cell:              Beta(6, 4),                    mean 6 / 10 = 0.6
    rows = [row(1, success=True), row(2, success=True), row(3, success=True), row(4, success=False)]
    rows.append(row(5, payer="AETNA", category="coding", success=False))
    prior = fit_prior(rows, 10.0)
    medicare = prior.cell("MEDICARE", "authorization")
    assert (medicare.alpha, medicare.beta, medicare.n, medicare.k) == (9.0, 5.0, 4, 3)
    assert medicare.mean == pytest.approx(0.642857142857, abs=1e-12)
    assert prior.cell("AETNA", "coding").mean == pytest.approx(0.545454545454, abs=1e-12)
    assert prior.cell("CIGNA", "coding").mean == pytest.approx(0.6, abs=1e-12)


def test_prior_credible_interval_by_hand() -> None:
    # Training: MEDICARE x authorization 1 of 1, AETNA x coding 0 of 1: m = 1/2; with S = 2 the prior is
    # Beta(1, 1) and the MEDICARE cell's posterior Beta(2, 1), whose CDF is x^2: the 2.5% and 97.5%
    # quantiles are sqrt(0.025) = 0.158113883 and sqrt(0.975) = 0.987420883; the mean is 2/3.
    rows = [row(1, success=True), row(2, payer="AETNA", category="coding", success=False)]
    cell = fit_prior(rows, 2.0).cell("MEDICARE", "authorization")
    assert cell.mean == pytest.approx(0.666666666667, abs=1e-12)
    assert cell.low == pytest.approx(0.158113883, abs=1e-9)
    assert cell.high == pytest.approx(0.987420883, abs=1e-9)


def hand_split_rows() -> list[Outcome]:
    # 40 outcomes: days 1..28 one each (rows 0..27), day 29 six (rows 28..33), day 30 six (rows 34..39).
    # Training successes (days 1..28): every 4th day from day 1, i.e. days 1, 5, 9, ..., 25: 7 of 28.
    #   MEDICARE holds days 1..14 (successes on 1, 5, 9, 13: 4 of 14), AETNA days 15..28 (17, 21, 25: 3 of 14).
    # Held-out days 29 and 30 go to CIGNA, every other one a success.
    rows = [row(d, payer="MEDICARE" if d <= 14 else "AETNA", success=(d - 1) % 4 == 0) for d in range(1, 29)]
    rows += [row(29, payer="CIGNA", success=i % 2 == 0) for i in range(6)]
    rows += [row(30, payer="CIGNA", success=i % 2 == 0) for i in range(6)]
    return rows


def test_time_split_by_hand() -> None:
    # 40 x 0.25 = 10 rows wanted; sorted by date the first of the last 10 is row 30, on day 29.
    # Rows 28 and 29 share day 29, so they are held out too: 12 held out (days 29-30), 28 trained.
    rows = hand_split_rows()
    training, held_out, split_date = split_by_time(list(reversed(rows)), 0.25)
    assert split_date == START + timedelta(days=29)
    assert len(training) == 28 and len(held_out) == 12
    assert {o.decided_on.day for o in training} == set(range(2, 30))  # Jan 2 .. Jan 29 = days 1..28
    assert all(o.payer_key == "CIGNA" for o in held_out)


def test_train_uses_the_split_and_fits_the_prior_on_training_only() -> None:
    model = train(hand_split_rows())
    assert model.version.split_date == START + timedelta(days=29)
    assert (model.version.trained_rows, model.version.held_out_rows) == (28, 12)
    assert not model.calibrated  # 28 training rows: fewer than 200
    assert "calibration skipped" in model.calibration_note
    # Prior on the 28 training rows: m = 7/28 = 0.25, S = 10 -> Beta(2.5, 7.5).
    #   MEDICARE x authorization: (2.5 + 4) / (10 + 14) = 6.5 / 24 = 0.270833...
    #   AETNA x authorization:    (2.5 + 3) / (10 + 14) = 5.5 / 24 = 0.229166...
    #   CIGNA (held out only):     0.25, so every held-out prior prediction is 0.25 and its
    #   Brier score is (6 x 0.75^2 + 6 x 0.25^2) / 12 = (3.375 + 0.375) / 12 = 0.3125.
    assert (model.prior.base_n, model.prior.base_k) == (28, 7)
    assert model.prior.cell("MEDICARE", "authorization").mean == pytest.approx(6.5 / 24, abs=1e-12)
    assert model.prior.cell("AETNA", "authorization").mean == pytest.approx(5.5 / 24, abs=1e-12)
    assert model.prior_metrics.brier.value == pytest.approx(0.3125, abs=1e-12)
    assert model.prior_metrics.auc.value == pytest.approx(0.5, abs=1e-12)  # one value for all: AUC 1/2


def test_result_does_not_depend_on_input_order() -> None:
    rows = world(3, 120, signal=True)
    forward, backward = train(rows), train(list(reversed(rows)))
    assert forward.version == backward.version
    assert forward.model_metrics == backward.model_metrics
    assert len(forward.version.fingerprint) == 16
    int(forward.version.fingerprint, 16)
    changed = [replace(rows[0], success=not rows[0].success), *rows[1:]]
    assert train(changed).version.fingerprint != forward.version.fingerprint


@given(
    k=st.integers(0, 30),
    extra=st.integers(0, 30),
    strength=st.floats(0.5, 50),
    base_k=st.integers(1, 99),
)
def test_prior_mean_lies_between_cell_rate_and_base_rate(k: int, extra: int, strength: float, base_k: int) -> None:
    n = k + extra
    prior = BetaBinomialPrior(strength, 100, base_k, ((("P", "c"), (n, k)),))
    cell = prior.cell("P", "c")
    m = base_k / 100
    rate = k / n if n else m
    assert min(m, rate) - 1e-12 <= cell.mean <= max(m, rate) + 1e-12
    assert 0.0 <= cell.low < cell.high <= 1.0
    if cell.alpha >= 1 and cell.beta >= 1:  # very skewed Betas (a or b < 1) may have their mean outside
        assert cell.low <= cell.mean <= cell.high
    if extra:  # one more success in place of a failure never lowers the mean
        better = BetaBinomialPrior(strength, 100, base_k, ((("P", "c"), (n, k + 1)),))
        assert better.cell("P", "c").mean >= cell.mean


# (d) validation


def test_refuses_fewer_than_40_outcomes() -> None:
    with pytest.raises(ValueError, match="fewer than the 40"):
        train(hand_split_rows()[:39])


def test_refuses_more_than_the_cap() -> None:
    with pytest.raises(ValueError, match="cap of 500,000"):
        train([row(1)] * (MAX_OUTCOMES + 1))


def test_refuses_a_held_out_set_with_one_class() -> None:
    rows = [replace(o, success=False) if o.payer_key == "CIGNA" else o for o in hand_split_rows()]
    with pytest.raises(ValueError, match=r"held-out part .* holds only failures"):
        train(rows)


def test_refuses_a_training_set_with_one_class() -> None:
    rows = [replace(o, success=True) if o.payer_key != "CIGNA" else o for o in hand_split_rows()]
    with pytest.raises(ValueError, match=r"training part .* holds only successes"):
        train(rows)


def test_refuses_a_single_date() -> None:
    rows = [row(1, success=i % 2 == 0) for i in range(40)]
    with pytest.raises(ValueError, match="nothing to train on"):
        train(rows)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"evidence_completeness": 1.5}, "evidence_completeness must be between 0 and 1"),
        ({"evidence_completeness": math.nan}, "evidence_completeness must be between 0 and 1"),
        ({"amount": Decimal("-1")}, "amount must be a finite Decimal >= 0"),
        ({"amount": Decimal("NaN")}, "amount must be a finite Decimal >= 0"),
        ({"age_days_at_action": -1}, "age_days_at_action must be >= 0"),
        ({"appeal_level": -1}, "appeal_level must be >= 0"),
        ({"payer_key": " "}, "payer_key is empty"),
        ({"action": ""}, "action is empty"),
    ],
)
def test_refuses_an_invalid_row(change: dict[str, object], message: str) -> None:
    rows = hand_split_rows()
    rows[5] = replace(rows[5], **change)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"outcome 5: {message}"):
        train(rows)


@pytest.mark.parametrize(
    ("keyword", "value", "message"),
    [
        ("holdout_fraction", 0.0, "holdout_fraction must be between 0 and 1"),
        ("holdout_fraction", 1.0, "holdout_fraction must be between 0 and 1"),
        ("prior_strength", 0.0, "prior_strength must be a positive number"),
        ("prior_strength", math.inf, "prior_strength must be a positive number"),
    ],
)
def test_refuses_bad_parameters(keyword: str, value: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        train(hand_split_rows(), **{keyword: value})  # type: ignore[arg-type]


def test_predict_refuses_an_invalid_case(planted: TrainedModel) -> None:
    case = Case("MEDICARE", "government", "coding", "CO-50", None, Decimal("10"), 1, 2.0, 0, "appeal")
    with pytest.raises(ValueError, match="evidence_completeness must be between 0 and 1"):
        planted.predict(case)
