"""Pooled evidence that an action works: fixed- and random-effects meta-analysis of study effects (pure).

Each `Study` is one estimate of the same effect (for example a difference-in-differences of denial rates
at one hospital or for one payer) with its standard error and sample size. `pool` combines them:

- **fixed effect** (inverse-variance weights 1/SE²): the estimate if every study measured one common effect.
- **random effects** (DerSimonian & Laird 1986): studies' true effects vary around a mean with between-study
  variance tau²; weights 1/(SE² + tau²), tau² = max(0, (Q - df) / C) by the method of moments.
- **heterogeneity**: Cochran's Q (Cochran 1954) on k - 1 df with its chi-squared p-value, and
  I² = (Q - df) / Q, 0 when Q <= df (Higgins & Thompson 2002), the share of the spread in the estimates that
  is not sampling error.

The computation is statsmodels' `combine_effects(method_re="dl")`. statsmodels does not truncate the DL
tau² at 0 (a negative tau² would give the random-effects estimate a smaller variance than the fixed one), so
when Q <= df this module sets tau² = 0 and the random-effects result equal to the fixed-effect one, as
DerSimonian & Laird define it. Intervals are 95%, normal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from api.evidence.evidence.estimators import ALPHA, Z_CRIT

MAX_STUDIES = 10_000


@dataclass(frozen=True)
class Study:
    """One study's estimate of the effect, its standard error (> 0) and its sample size (claims, >= 1)."""

    label: str
    effect: float
    standard_error: float
    n: int

    def __post_init__(self) -> None:
        if not math.isfinite(self.effect):
            raise ValueError(f"study {self.label!r}: effect must be a finite number, got {self.effect!r}")
        if not math.isfinite(self.standard_error) or self.standard_error <= 0:
            raise ValueError(
                f"study {self.label!r}: standard error must be a finite number > 0, got {self.standard_error!r}"
            )
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"study {self.label!r}: n must be a positive int, got {self.n!r}")


@dataclass(frozen=True)
class Pooled:
    """Fixed- and random-effects estimates with 95% intervals, and heterogeneity (None with a single study)."""

    fixed_effect: float
    fixed_standard_error: float
    fixed_ci_low: float
    fixed_ci_high: float
    random_effect: float
    random_standard_error: float
    random_ci_low: float
    random_ci_high: float
    tau2: float | None
    q: float | None
    q_df: int | None
    q_p_value: float | None
    i2: float | None  # a fraction in [0, 1)
    n_studies: int
    n_total: int
    statement: str


def _heterogeneity_statement(q: float, df: int, p_value: float, i2: float) -> str:
    test = f"Q = {q:.2f} on {df} df, p = {p_value:.3g}, I² = {i2:.0%}"
    if q <= df:
        return (
            f"No heterogeneity beyond chance ({test}): tau² is 0 and the random-effects estimate equals the "
            f"fixed-effect one. With few studies Q has little power, so this does not prove the effects are equal."
        )
    # Higgins et al. (2003): I² of about 25%, 50% and 75% read as low, moderate and high.
    if i2 < 0.25:
        return (
            f"Little heterogeneity ({test}): the studies' estimates vary about as much as sampling error explains; "
            f"the random-effects estimate is close to the fixed-effect one."
        )
    level = "High" if i2 >= 0.75 else "Moderate" if i2 >= 0.5 else "Low to moderate"
    return (
        f"{level} heterogeneity ({test}): {i2:.0%} of the variation between the studies' estimates reflects real "
        f"differences rather than chance, which suggests the effect differs between studies; read the random-effects "
        f"estimate (the average effect, with a wider interval), not the fixed-effect one."
    )


def pool(studies: Sequence[Study]) -> Pooled:
    """Inverse-variance fixed-effect and DerSimonian-Laird random-effects pooling of `studies`.

    One study: both estimates are that study's effect with its standard error, and tau², Q, its df and
    p-value and I² are None (heterogeneity needs at least two studies). Raises ValueError for no studies,
    more than `MAX_STUDIES`, or a study whose standard error is so small its variance underflows.
    """
    k = len(studies)
    if k == 0:
        raise ValueError("pool needs at least one study")
    if k > MAX_STUDIES:
        raise ValueError(f"pool takes at most {MAX_STUDIES} studies, got {k}")
    for s in studies:
        if not isinstance(s, Study):
            raise ValueError(f"pool takes Study values, got {type(s).__name__}")
    effects = np.array([float(s.effect) for s in studies])
    variances = np.array([float(s.standard_error) ** 2 for s in studies])
    if np.any(variances < np.finfo(float).tiny):  # 1/variance must be a finite weight
        raise ValueError("a study's standard error is too small to weight (its square underflows)")
    n_total = sum(s.n for s in studies)

    if k == 1:
        s = studies[0]
        est, se = float(s.effect), float(s.standard_error)
        low, high = est - Z_CRIT * se, est + Z_CRIT * se
        statement = f"One study ({s.label!r}): the pooled estimate is that study's; heterogeneity cannot be estimated."
        return Pooled(est, se, low, high, est, se, low, high, None, None, None, None, None, 1, n_total, statement)

    # Imported when used, so that importing the API does not pay for scipy.stats and statsmodels.
    from scipy.stats import chi2
    from statsmodels.stats.meta_analysis import combine_effects

    # errstate: statsmodels divides by Q when it derives its own I², which warns when Q is 0 (identical effects).
    with np.errstate(divide="ignore", invalid="ignore"):
        res = combine_effects(effects, variances, method_re="dl", alpha=ALPHA, use_t=False)
        ci_fe, ci_re, _, _ = res.conf_int(alpha=ALPHA, use_t=False)
    df = k - 1
    q = max(float(res.q), 0.0)  # the expanded-sum formula can round a zero Q to -1e-17
    p_value = float(chi2.sf(q, df))
    fe, fe_se = float(res.mean_effect_fe), float(res.sd_eff_w_fe)
    if q > df and float(res.tau2) > 0:
        tau2 = float(res.tau2)
        re, re_se = float(res.mean_effect_re), float(res.sd_eff_w_re)
        re_low, re_high = float(ci_re[0]), float(ci_re[1])
    else:  # DerSimonian-Laird truncation: tau² = 0, so the random-effects weights are the fixed ones
        tau2 = 0.0
        re, re_se = fe, fe_se
        re_low, re_high = float(ci_fe[0]), float(ci_fe[1])
    i2 = (q - df) / q if q > df else 0.0
    numbers = (fe, fe_se, float(ci_fe[0]), float(ci_fe[1]), re, re_se, re_low, re_high, tau2, q)
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError("the studies' effects or standard errors are too extreme to pool (the sums overflow)")
    return Pooled(
        fe,
        fe_se,
        float(ci_fe[0]),
        float(ci_fe[1]),
        re,
        re_se,
        re_low,
        re_high,
        tau2,
        q,
        df,
        p_value,
        i2,
        k,
        n_total,
        _heterogeneity_statement(q, df, p_value, i2),
    )
