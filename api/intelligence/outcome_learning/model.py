"""P(success) of a recovery action on a denial case, learned from decided outcomes (pure, no I/O).

Each recorded decision (an appeal, a corrected claim, a peer-to-peer review, ...) on a denial case is
one ``Outcome``: what the case looked like when the action was taken, which action, and whether it
recovered the money. ``train`` fits a regularised logistic regression (Cox 1958) on those rows with
scikit-learn and measures it, on a held-out set of the LATEST outcomes, against the platform's existing
kind of estimate: a Beta-binomial prior of the success rate per payer x category
(``api.denials.human_attention.history_prior``; Gelman et al., *Bayesian Data Analysis*, 3rd ed., 2.4).
The model is only used (``TrainedModel.predict`` answers with it) when it beats that prior by more than
the uncertainty of the comparison; otherwise the prior answers.

Why a time split and not a random one: the model will be used on future cases, and payer behaviour
drifts; scoring it on outcomes decided after every training outcome is the honest test (a random split
leaks the future into training).

Method, step by step:

1. The rows are put in a canonical order (decided_on, then every field), so the result does not depend
   on the order they were passed in.
2. Split: the latest ``holdout_fraction`` of the rows by ``decided_on`` are held out. The split date is
   the date of the first row of that tail; every row of that date is held out too (ties are never cut
   in two), so the held-out set can be slightly larger than the fraction.
3. Features: one-hot of payer_key, payer_class, category, carc, rarc (missing = "(none)"), action and
   appeal_level (a category unseen in training contributes nothing at predict time), and the
   standardised numbers log1p(amount), age_days_at_action, evidence_completeness.
4. Model: ``Pipeline(ColumnTransformer(OneHotEncoder(handle_unknown="ignore") + StandardScaler),
   LogisticRegression(C=1, random_state=0))``. Its probabilities are calibrated with Platt scaling
   (Platt 1999; ``CalibratedClassifierCV(method="sigmoid", cv=5, ensemble=False)``: the sigmoid is
   fitted on 5-fold out-of-fold predictions of the training rows, the logistic itself on all of them)
   when the training part holds at least ``CALIBRATION_MIN_ROWS`` rows and at least
   ``CALIBRATION_MIN_PER_CLASS`` of each class (so every fold scores both classes). Below that,
   calibration is SKIPPED: the logistic's own probabilities are used, and ``TrainedModel.calibrated``
   is False with the reason in ``calibration_note``.
5. Prior: a Beta-binomial per payer x category fitted on the training part only: with the training
   success rate m and ``prior_strength`` S pseudo-counts, a cell with k successes of n has the posterior
   Beta(S m + k, S (1 - m) + n - k), mean (S m + k) / (S + n); a cell unseen in training answers m.
6. Held-out metrics for both: AUC (Hanley & McNeil 1982), Brier score (Brier 1950), log loss, and
   calibration by decile of predicted probability (count, mean predicted, observed rate with its Wilson
   1927 interval). Each metric carries a 95% percentile bootstrap interval (Efron & Tibshirani 1993;
   ``BOOTSTRAP_RESAMPLES`` resamples of the held-out rows, seed ``BOOTSTRAP_SEED``) and the held-out n.
7. ``beats_prior``: the model's held-out Brier score is lower than the prior's AND the paired bootstrap
   interval of the difference (model - prior, the same resampled rows for both) lies entirely below 0
   AND the model's AUC interval lies above 0.5 (it tells successes from failures; see ``_verdict`` for
   why a Brier win alone is not enough). A win inside the noise is not a win: with little data the
   prior, whose behaviour is understood, keeps answering.

Sizes: at least ``MIN_OUTCOMES`` rows (fewer cannot give a held-out set able to tell two estimators
apart), at most ``MAX_OUTCOMES`` (bounds memory and the bootstrap's run time).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from api.denials.human_attention.history_prior import posterior

# pandas, scikit-learn, scipy and statsmodels are imported where a model is fitted or scored, not when the
# API starts: together they cost about 1.5 s in every process that imports api.app.
if TYPE_CHECKING:
    import pandas as pd
    from sklearn.pipeline import Pipeline

MIN_OUTCOMES = 40
MAX_OUTCOMES = 500_000
CALIBRATION_MIN_ROWS = 200
CALIBRATION_MIN_PER_CLASS = 25
CALIBRATION_FOLDS = 5
BOOTSTRAP_RESAMPLES = 500
BOOTSTRAP_SEED = 20_260_426
RANDOM_STATE = 0
TOP_CONTRIBUTIONS = 5
CONFIDENCE = 0.95
DECILES = 10

#: One-hot features, in the order the model sees them.
CATEGORICAL_FEATURES: tuple[str, ...] = (
    "payer_key",
    "payer_class",
    "category",
    "carc",
    "rarc",
    "action",
    "appeal_level",
)
#: Numeric features (standardised): the amount enters on the log1p scale (a $100 and a $100,000 claim
#: differ by orders of magnitude; the effect of one more dollar shrinks).
NUMERIC_FEATURES: tuple[str, ...] = ("amount", "age_days_at_action", "evidence_completeness")
_MISSING = "(none)"

Source = Literal["model", "prior"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class CaseLike(Protocol):
    """What ``predict`` reads from a case: the features of an ``Outcome`` (an ``Outcome`` is one)."""

    @property
    def payer_key(self) -> str: ...
    @property
    def payer_class(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def carc(self) -> str: ...
    @property
    def rarc(self) -> str | None: ...
    @property
    def amount(self) -> Decimal: ...
    @property
    def age_days_at_action(self) -> int: ...
    @property
    def evidence_completeness(self) -> float: ...
    @property
    def appeal_level(self) -> int: ...
    @property
    def action(self) -> str: ...


@dataclass(frozen=True)
class Case:
    """A case about to be acted on: the features an ``Outcome`` records, without its date and result."""

    payer_key: str
    payer_class: str
    category: str
    carc: str
    rarc: str | None
    amount: Decimal
    age_days_at_action: int
    evidence_completeness: float  # 0..1: share of the evidence the action needed that was on file
    appeal_level: int  # 0 = first action, 1 = first-level appeal, ...
    action: str


@dataclass(frozen=True)
class Outcome(Case):
    """One decided action on a denial case: the case when the action was taken, and whether it succeeded."""

    decided_on: date
    success: bool


@dataclass(frozen=True)
class Estimate:
    """A number with its 95% interval and the sample size it came from."""

    value: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class CalibrationBin:
    """One decile of predicted probability on the held-out set.

    ``lower``..``upper``: the range of predictions in the bin; ``observed_low``..``observed_high``: the
    Wilson (1927) 95% interval of the observed success rate among its ``count`` rows.
    """

    decile: int  # 1..10
    lower: float
    upper: float
    count: int
    mean_predicted: float
    observed_rate: float
    observed_low: float
    observed_high: float


@dataclass(frozen=True)
class HeldOutMetrics:
    """An estimator's scores on the held-out rows (n of them, ``successes`` successful).

    Intervals: 95% percentile bootstrap over held-out rows; ``auc.n`` counts the resamples holding
    both classes (the others have no AUC), the other estimates' n is the held-out n.
    """

    n: int
    successes: int
    auc: Estimate
    brier: Estimate
    log_loss: Estimate
    calibration: tuple[CalibrationBin, ...]


@dataclass(frozen=True)
class ModelVersion:
    """What the model was trained on: a fingerprint of every input row, the parameters and the library
    versions (sha256, first 16 hex digits), the row counts and the split date (first held-out date)."""

    fingerprint: str
    trained_rows: int
    held_out_rows: int
    split_date: date
    libraries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CellEstimate:
    """The prior's posterior for one payer x category cell: mean with its 95% equal-tailed credible
    interval, from k successes of n training outcomes in the cell (n = 0: the training rate). A very
    skewed posterior (alpha or beta below 1: a tiny pseudo-count on an extreme rate) can have its mean
    outside its equal-tailed interval."""

    mean: float
    low: float
    high: float
    n: int
    k: int
    alpha: float
    beta: float


@dataclass(frozen=True)
class BetaBinomialPrior:
    """P(success) per payer x category, shrunk to the overall rate with ``strength`` pseudo-counts.

    The conjugate update of ``history_prior.posterior``: Beta(S m, S (1 - m)) with m = the overall
    success rate (``base_k`` of ``base_n``) and S = ``strength``, updated by the cell's k of n.
    """

    strength: float
    base_n: int
    base_k: int
    cells: tuple[tuple[tuple[str, str], tuple[int, int]], ...]  # ((payer_key, category), (n, k)), sorted

    def __post_init__(self) -> None:
        if not (math.isfinite(self.strength) and self.strength > 0):
            raise ValueError(f"prior_strength must be a positive number of pseudo-counts, got {self.strength}")
        if not 0 < self.base_k < self.base_n:
            raise ValueError("the prior needs both successes and failures (a rate of 0 or 1 has no Beta prior)")

    @property
    def base_rate(self) -> float:
        return self.base_k / self.base_n

    def cell(self, payer_key: str, category: str) -> CellEstimate:
        n, k = dict(self.cells).get((payer_key, category), (0, 0))
        alpha, beta = posterior(self.base_rate, self.strength, k, n)
        from scipy.stats import beta as beta_distribution

        low, high = beta_distribution.ppf([(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2], alpha, beta)
        return CellEstimate(alpha / (alpha + beta), float(low), float(high), n, k, alpha, beta)

    def means(self, rows: Sequence[CaseLike]) -> FloatArray:
        """The posterior mean of each row's cell (one dictionary lookup per row)."""
        table = dict(self.cells)
        m, s = self.base_rate, self.strength
        out = np.empty(len(rows), dtype=np.float64)
        for i, row in enumerate(rows):
            n, k = table.get((row.payer_key, row.category), (0, 0))
            out[i] = (s * m + k) / (s + n)
        return out


def fit_prior(outcomes: Sequence[Outcome], strength: float) -> BetaBinomialPrior:
    """The Beta-binomial prior of ``outcomes`` (non-empty, both classes not required)."""
    if not outcomes:
        raise ValueError("the prior needs at least one outcome")
    if not (math.isfinite(strength) and strength > 0):
        raise ValueError(f"prior_strength must be a positive number of pseudo-counts, got {strength}")
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for o in outcomes:
        n, k = counts.get((o.payer_key, o.category), (0, 0))
        counts[(o.payer_key, o.category)] = (n + 1, k + int(o.success))
    base_k = sum(int(o.success) for o in outcomes)
    if base_k in (0, len(outcomes)):
        raise ValueError("the prior needs both successes and failures (a rate of 0 or 1 has no Beta prior)")
    return BetaBinomialPrior(float(strength), len(outcomes), base_k, tuple(sorted(counts.items())))


@dataclass(frozen=True)
class Contribution:
    """One feature's push on the logistic's log-odds: coefficient x value.

    ``value`` is 1 for an active one-hot category, the standardised value (z-score on the training
    rows; the amount on the log1p scale) for a number.
    """

    feature: str  # e.g. "payer_key=MEDICARE", "evidence_completeness"
    value: float
    log_odds: float


@dataclass(frozen=True)
class Prediction:
    """P(success) of the action on the case, and who answered.

    Interval (``low``..``high``, ``n``):
    - source "model": the Wilson 95% interval of the observed success rate among the ``n`` held-out
      outcomes whose model prediction fell in the same decile (how often predictions like this one came
      true on unseen, later cases; it is not a parameter-uncertainty interval).
    - source "prior": the 95% credible interval of the payer x category cell's Beta posterior, ``n``
      = the cell's training outcomes.
    ``contributions``: when the model answered, the largest feature contributions to the UNCALIBRATED
    logistic part (top 5 by absolute log-odds; the calibration's sigmoid is monotone, so their sign
    says which way each pushed); empty when the prior answered (the model's reasons did not decide).
    """

    probability: float
    low: float
    high: float
    n: int
    source: Source
    contributions: tuple[Contribution, ...]
    note: str


@dataclass(frozen=True)
class TrainedModel:
    """The fitted model, the fitted prior, their held-out scores and the verdict between them."""

    version: ModelVersion
    model_metrics: HeldOutMetrics
    prior_metrics: HeldOutMetrics
    brier_difference: Estimate  # model - prior; paired bootstrap interval; n = held-out rows
    beats_prior: bool
    reason: str
    calibrated: bool
    calibration_note: str
    prior: BetaBinomialPrior
    _classifier: Any = field(repr=False, compare=False)  # predict_proba: calibrated or the pipeline
    _pipeline: Any = field(repr=False, compare=False)  # the logistic pipeline fitted on all training
    _feature_names: tuple[str, ...] = field(repr=False, compare=False)
    _decile_edges: tuple[float, ...] = field(repr=False, compare=False)  # inner edges of the model's bins

    def predict(self, case: CaseLike) -> Prediction:
        """P(success) for one case: the model's when it beats the prior, else the prior's."""
        _validate_case(case)
        if not self.beats_prior:
            cell = self.prior.cell(case.payer_key, case.category)
            note = (
                f"the payer x category prior answered ({cell.k} successes of {cell.n} training outcomes"
                f" in the cell, shrunk to the training rate with {self.prior.strength:g} pseudo-counts):"
                f" the model did not beat it on the held-out set ({self.reason})"
            )
            return Prediction(cell.mean, cell.low, cell.high, cell.n, "prior", (), note)
        frame = _frame([case])
        probability = float(self._classifier.predict_proba(frame)[0, 1])
        bin_ = _bin_for(self.model_metrics.calibration, self._decile_edges, probability)
        note = (
            "the model answered"
            + (" (Platt-calibrated)" if self.calibrated else " (uncalibrated: " + self.calibration_note + ")")
            + "; the interval is the observed success rate of its held-out predictions in the same decile;"
            " contributions explain the uncalibrated logistic part (log-odds, intercept excluded)"
        )
        return Prediction(
            probability,
            bin_.observed_low,
            bin_.observed_high,
            bin_.count,
            "model",
            self._contributions(frame),
            note,
        )

    def probabilities(self, cases: Sequence[CaseLike]) -> list[float]:
        """``predict(case).probability`` of each case, in one pass (one frame, one ``predict_proba``) for
        a batch such as a whole worklist; no intervals, no contributions."""
        for index, case in enumerate(cases):
            _validate_case(case, where=f"case {index}: ")
        if not cases:
            return []
        if not self.beats_prior:
            return [float(p) for p in self.prior.means(cases)]
        return [float(p) for p in self._classifier.predict_proba(_frame(cases))[:, 1]]

    def _contributions(self, frame: pd.DataFrame) -> tuple[Contribution, ...]:
        import scipy.sparse

        features = self._pipeline[:-1].transform(frame)
        row = np.asarray(features.toarray() if scipy.sparse.issparse(features) else features, dtype=np.float64)[0]
        coefficients = np.asarray(self._pipeline[-1].coef_[0], dtype=np.float64)
        pushes = [
            Contribution(name, float(value), float(value * coefficient))
            for name, value, coefficient in zip(self._feature_names, row, coefficients, strict=True)
            if value != 0.0
        ]
        pushes.sort(key=lambda c: (-abs(c.log_odds), c.feature))
        return tuple(pushes[:TOP_CONTRIBUTIONS])


def train(outcomes: Sequence[Outcome], *, holdout_fraction: float = 0.25, prior_strength: float = 10.0) -> TrainedModel:
    """Fit the model on the earlier outcomes, score it and the Beta-binomial prior on the later ones.

    See the module docstring for the method. Calibration is skipped (``calibrated`` False) when the
    training part has fewer than ``CALIBRATION_MIN_ROWS`` rows or fewer than
    ``CALIBRATION_MIN_PER_CLASS`` of either class.

    Raises ValueError for fewer than ``MIN_OUTCOMES`` or more than ``MAX_OUTCOMES`` outcomes, a bad
    ``holdout_fraction`` (not in (0, 1)) or ``prior_strength`` (not > 0), an invalid row, a split that
    leaves no training row (every outcome on the same date), and a training or held-out part without
    both successes and failures.
    """
    if len(outcomes) > MAX_OUTCOMES:
        raise ValueError(
            f"{len(outcomes)} outcomes is more than the cap of {MAX_OUTCOMES:,}: train on the latest {MAX_OUTCOMES:,}"
        )
    if len(outcomes) < MIN_OUTCOMES:
        raise ValueError(
            f"{len(outcomes)} outcomes is fewer than the {MIN_OUTCOMES} needed to train and test a model:"
            " record more decided actions first"
        )
    if not (math.isfinite(holdout_fraction) and 0.0 < holdout_fraction < 1.0):
        raise ValueError(f"holdout_fraction must be between 0 and 1 (exclusive), got {holdout_fraction}")
    if not (math.isfinite(prior_strength) and prior_strength > 0):
        raise ValueError(f"prior_strength must be a positive number of pseudo-counts, got {prior_strength}")
    for index, outcome in enumerate(outcomes):
        _validate_case(outcome, where=f"outcome {index}: ")

    rows = sorted(outcomes, key=_canonical_key)
    training, held_out, split_date = split_by_time(rows, holdout_fraction)
    y_train = np.array([o.success for o in training], dtype=np.int64)
    y_test = np.array([o.success for o in held_out], dtype=np.int64)
    for part, y in (("training", y_train), ("held-out", y_test)):
        if y.min() == y.max():
            only = "successes" if y[0] else "failures"
            raise ValueError(
                f"the {part} part ({len(y)} outcomes split at {split_date.isoformat()}) holds only {only}:"
                " a model of P(success) needs both; record more outcomes or change holdout_fraction"
            )

    pipeline = _pipeline()
    x_train, x_test = _frame(training), _frame(held_out)
    minority = int(min(y_train.sum(), len(y_train) - y_train.sum()))
    calibrated = len(training) >= CALIBRATION_MIN_ROWS and minority >= CALIBRATION_MIN_PER_CLASS
    if calibrated:
        from sklearn.calibration import CalibratedClassifierCV

        classifier = CalibratedClassifierCV(pipeline, method="sigmoid", cv=CALIBRATION_FOLDS, ensemble=False)
        classifier.fit(x_train, y_train)
        fitted_pipeline = classifier.calibrated_classifiers_[0].estimator
        calibration_note = (
            f"Platt sigmoid fitted on {CALIBRATION_FOLDS}-fold out-of-fold predictions of {len(training)} training rows"
        )
    else:
        classifier = pipeline.fit(x_train, y_train)
        fitted_pipeline = pipeline
        calibration_note = (
            f"calibration skipped: {len(training)} training rows with {minority} in the smaller class"
            f" (needs {CALIBRATION_MIN_ROWS} rows and {CALIBRATION_MIN_PER_CLASS} of each class)"
        )

    p_model = np.asarray(classifier.predict_proba(x_test)[:, 1], dtype=np.float64)
    prior = fit_prior(training, prior_strength)
    p_prior = prior.means(held_out)

    resamples = _resamples(len(held_out))
    model_metrics, model_edges = _metrics(y_test, p_model, resamples)
    prior_metrics, _ = _metrics(y_test, p_prior, resamples)
    brier_difference = _paired_brier_difference(y_test, p_model, p_prior, resamples)
    beats, reason = _verdict(model_metrics, prior_metrics, brier_difference)

    version = ModelVersion(
        _fingerprint(rows, holdout_fraction, prior_strength),
        len(training),
        len(held_out),
        split_date,
        _libraries(),
    )
    return TrainedModel(
        version=version,
        model_metrics=model_metrics,
        prior_metrics=prior_metrics,
        brier_difference=brier_difference,
        beats_prior=beats,
        reason=reason,
        calibrated=calibrated,
        calibration_note=calibration_note,
        prior=prior,
        _classifier=classifier,
        _pipeline=fitted_pipeline,
        _feature_names=_feature_names(fitted_pipeline),
        _decile_edges=model_edges,
    )


def split_by_time(rows: Sequence[Outcome], holdout_fraction: float) -> tuple[list[Outcome], list[Outcome], date]:
    """(training, held-out, split date): held out are the rows decided on or after the split date, the
    date of the first of the latest ceil(n x fraction) rows; rows sharing that date are all held out."""
    if not rows:
        raise ValueError("nothing to split: no outcomes")
    ordered = sorted(rows, key=lambda o: o.decided_on)
    wanted = max(1, math.ceil(len(ordered) * holdout_fraction))
    split_date = ordered[len(ordered) - wanted].decided_on
    training = [o for o in ordered if o.decided_on < split_date]
    held_out = [o for o in ordered if o.decided_on >= split_date]
    if not training:
        raise ValueError(
            f"every outcome was decided on or after {split_date.isoformat()}: the time split leaves nothing"
            " to train on (outcomes from earlier dates are needed)"
        )
    return training, held_out, split_date


def _validate_case(case: CaseLike, where: str = "") -> None:
    if not case.payer_key.strip():
        raise ValueError(f"{where}payer_key is empty")
    if not case.action.strip():
        raise ValueError(f"{where}action is empty")
    if not isinstance(case.amount, Decimal) or not case.amount.is_finite() or case.amount < 0:
        raise ValueError(f"{where}amount must be a finite Decimal >= 0, got {case.amount!r}")
    if case.age_days_at_action < 0:
        raise ValueError(f"{where}age_days_at_action must be >= 0, got {case.age_days_at_action}")
    if not (math.isfinite(case.evidence_completeness) and 0.0 <= case.evidence_completeness <= 1.0):
        raise ValueError(f"{where}evidence_completeness must be between 0 and 1, got {case.evidence_completeness}")
    if case.appeal_level < 0:
        raise ValueError(f"{where}appeal_level must be >= 0, got {case.appeal_level}")


def _canonical_key(o: Outcome) -> tuple[Any, ...]:
    return (
        o.decided_on,
        o.payer_key,
        o.payer_class,
        o.category,
        o.carc,
        o.rarc or "",
        o.amount,
        o.age_days_at_action,
        o.evidence_completeness,
        o.appeal_level,
        o.action,
        o.success,
    )


def _frame(rows: Sequence[CaseLike]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {
            "payer_key": [r.payer_key for r in rows],
            "payer_class": [r.payer_class for r in rows],
            "category": [r.category for r in rows],
            "carc": [r.carc for r in rows],
            "rarc": [r.rarc if r.rarc else _MISSING for r in rows],
            "action": [r.action for r in rows],
            "appeal_level": [str(r.appeal_level) for r in rows],
            "amount": [math.log1p(float(r.amount)) for r in rows],
            "age_days_at_action": [float(r.age_days_at_action) for r in rows],
            "evidence_completeness": [float(r.evidence_completeness) for r in rows],
        },
        columns=[*CATEGORICAL_FEATURES, *NUMERIC_FEATURES],
    )


def _pipeline() -> Pipeline:
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    features = ColumnTransformer(
        [
            ("onehot", OneHotEncoder(handle_unknown="ignore"), list(CATEGORICAL_FEATURES)),
            ("scale", StandardScaler(), list(NUMERIC_FEATURES)),
        ]
    )
    # L2 with C = 1 (the library's default): keeps thin one-hot levels (a payer with three outcomes)
    # from taking extreme coefficients.
    logistic = LogisticRegression(C=1.0, max_iter=1000, random_state=RANDOM_STATE)
    return Pipeline([("features", features), ("logistic", logistic)])


def _feature_names(pipeline: Any) -> tuple[str, ...]:
    encoder = pipeline.named_steps["features"].named_transformers_["onehot"]
    names = [
        f"{column}={category}"
        for column, categories in zip(CATEGORICAL_FEATURES, encoder.categories_, strict=True)
        for category in categories
    ]
    return (*names, *NUMERIC_FEATURES)


def _resamples(n: int) -> list[IntArray]:
    """The bootstrap's row indices, shared by every metric and both estimators (a paired comparison)."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    return [rng.integers(0, n, size=n, dtype=np.int64) for _ in range(BOOTSTRAP_RESAMPLES)]


def _percentile_interval(values: Sequence[float] | FloatArray) -> tuple[float, float]:
    low, high = np.percentile(np.asarray(values, dtype=np.float64), [50 * (1 - CONFIDENCE), 50 * (1 + CONFIDENCE)])
    return float(low), float(high)


def _metrics(y: IntArray, p: FloatArray, resamples: list[IntArray]) -> tuple[HeldOutMetrics, tuple[float, ...]]:
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    n = len(y)
    # Per-row losses: a resample's Brier score / log loss is the mean of its rows' losses, so the
    # bootstrap indexes these instead of calling the scorer 500 times (same numbers, the point values
    # below come from the library's scorers).
    clipped = np.clip(p, np.finfo(np.float64).eps, 1 - np.finfo(np.float64).eps)
    row_brier = (p - y) ** 2
    row_log_loss = -(y * np.log(clipped) + (1 - y) * np.log1p(-clipped))
    briers = [float(row_brier[index].mean()) for index in resamples]
    log_losses = [float(row_log_loss[index].mean()) for index in resamples]
    aucs = _bootstrap_aucs(y, p, resamples)
    auc_low, auc_high = _percentile_interval(aucs) if aucs else (math.nan, math.nan)
    calibration, edges = _calibration(y, p)
    metrics = HeldOutMetrics(
        n=n,
        successes=int(y.sum()),
        auc=Estimate(float(roc_auc_score(y, p)), auc_low, auc_high, len(aucs)),
        brier=Estimate(float(brier_score_loss(y, p)), *_percentile_interval(briers), n),
        log_loss=Estimate(float(log_loss(y, clipped, labels=[0, 1])), *_percentile_interval(log_losses), n),
        calibration=calibration,
    )
    return metrics, edges


def _bootstrap_aucs(y: IntArray, p: FloatArray, resamples: list[IntArray]) -> list[float]:
    """The AUC of each resample holding both classes, as the Mann-Whitney statistic
    U / (n1 n0) (Hanley & McNeil 1982) from scipy's mid-ranks: the number ``roc_auc_score`` gives, without
    its per-call validation (about 10 ms, which 1,000 calls would turn into seconds)."""
    from scipy.stats import rankdata

    aucs: list[float] = []
    for index in resamples:
        y_resampled = y[index]
        positives = int(y_resampled.sum())
        negatives = len(y_resampled) - positives
        if positives == 0 or negatives == 0:
            continue
        ranks = rankdata(p[index])
        rank_sum = float(ranks[y_resampled == 1].sum())
        aucs.append((rank_sum - positives * (positives + 1) / 2) / (positives * negatives))
    return aucs


def _calibration(y: IntArray, p: FloatArray) -> tuple[tuple[CalibrationBin, ...], tuple[float, ...]]:
    """Bins at the deciles of the predictions (equal counts up to ties; tied predictions share a bin,
    so a bin may be empty and is then left out)."""
    from statsmodels.stats.proportion import proportion_confint

    inner = np.quantile(p, np.linspace(0, 1, DECILES + 1)[1:-1])
    bins = np.searchsorted(inner, p, side="right")
    out: list[CalibrationBin] = []
    for decile in range(DECILES):
        members = bins == decile
        count = int(members.sum())
        if count == 0:
            continue
        successes = int(y[members].sum())
        low, high = proportion_confint(successes, count, alpha=1 - CONFIDENCE, method="wilson")
        rate = successes / count
        # The Wilson bounds at k = 0 or k = n are 0 and 1 exactly; keep float round-off from excluding them.
        low, high = min(float(low), rate), max(float(high), rate)
        out.append(
            CalibrationBin(
                decile=decile + 1,
                lower=float(p[members].min()),
                upper=float(p[members].max()),
                count=count,
                mean_predicted=float(p[members].mean()),
                observed_rate=rate,
                observed_low=low,
                observed_high=high,
            )
        )
    return tuple(out), tuple(float(edge) for edge in inner)


def _bin_for(calibration: tuple[CalibrationBin, ...], edges: tuple[float, ...], probability: float) -> CalibrationBin:
    decile = int(np.searchsorted(np.asarray(edges), probability, side="right")) + 1
    # The decile a new probability falls in is never an empty one (an empty bin lies between two equal
    # edges); the nearest bin is a guard.
    return min(calibration, key=lambda b: (abs(b.decile - decile), b.decile))


def _paired_brier_difference(
    y: IntArray, p_model: FloatArray, p_prior: FloatArray, resamples: list[IntArray]
) -> Estimate:
    """Brier(model) - Brier(prior) with the 95% percentile interval of the same resampled rows."""
    from sklearn.metrics import brier_score_loss

    row_difference = (p_model - y) ** 2 - (p_prior - y) ** 2
    differences = [float(row_difference[index].mean()) for index in resamples]
    value = float(brier_score_loss(y, p_model) - brier_score_loss(y, p_prior))
    return Estimate(value, *_percentile_interval(differences), len(y))


def _verdict(model: HeldOutMetrics, prior: HeldOutMetrics, difference: Estimate) -> tuple[bool, str]:
    """Does the model beat the prior? Three conditions, all on the held-out rows:

    1. its Brier score is lower than the prior's;
    2. by more than the noise: the paired bootstrap 95% interval of the difference lies below 0;
    3. it discriminates: its AUC's bootstrap 95% interval lies above 0.5.

    Why the third: when success depends on nothing, the Platt-calibrated model flattens to the training
    success rate, while the per-cell prior keeps some of each cell's noise; the model then wins on Brier
    by a hair, sometimes "significantly" (about one pure-noise world in five in a 32-seed trial with 1,500
    outcomes and 10 payer x category cells). Such a model has learned only the base rate, and its feature
    contributions would explain noise, so the prior keeps answering.
    """
    interval = f"95% interval of the difference {difference.low:+.4f} to {difference.high:+.4f}"
    scores = f"held-out Brier {model.brier.value:.4f} (model) vs {prior.brier.value:.4f} (prior), n = {difference.n}"
    if model.brier.value >= prior.brier.value:
        return False, f"the model's Brier score is not lower than the prior's: {scores}"
    if difference.high >= 0:
        return False, f"the model's lower Brier score is within the noise ({interval} reaches 0): {scores}"
    auc = model.auc
    if not auc.low > 0.5:
        return False, (
            f"the model's lower Brier score is beyond the noise ({interval}) but it does not discriminate:"
            f" held-out AUC {auc.value:.3f} (95% interval {auc.low:.3f} to {auc.high:.3f} reaches 0.5): {scores}"
        )
    return True, (
        f"the model's Brier score is lower beyond the noise ({interval}) and it discriminates"
        f" (held-out AUC {auc.value:.3f}, 95% interval {auc.low:.3f} to {auc.high:.3f}): {scores}"
    )


def _libraries() -> tuple[tuple[str, str], ...]:
    import pandas as pd
    import scipy
    import sklearn
    import statsmodels

    return (
        ("numpy", np.__version__),
        ("pandas", pd.__version__),
        ("scikit-learn", sklearn.__version__),
        ("scipy", scipy.__version__),
        ("statsmodels", statsmodels.__version__),
    )


def _fingerprint(rows: Sequence[Outcome], holdout_fraction: float, prior_strength: float) -> str:
    """sha256 of the canonical rows (all of them: the held-out ones decide beats_prior), the parameters
    and the library versions; the first 16 hex digits."""
    digest = hashlib.sha256()
    for name, version in _libraries():
        digest.update(f"{name}={version}\n".encode())
    digest.update(f"holdout_fraction={holdout_fraction!r};prior_strength={prior_strength!r}\n".encode())
    for o in rows:
        amount = format(o.amount.normalize(), "f")  # 10, 10.0 and 10.00 are the same amount
        fields = (
            o.decided_on.isoformat(),
            o.payer_key,
            o.payer_class,
            o.category,
            o.carc,
            o.rarc or "",
            amount,
            str(o.age_days_at_action),
            repr(float(o.evidence_completeness)),
            str(o.appeal_level),
            o.action,
            "1" if o.success else "0",
        )
        digest.update(("\x1f".join(fields) + "\n").encode())
    return digest.hexdigest()[:16]
