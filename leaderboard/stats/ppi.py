"""Prediction-powered means (PPI++): a judge's score corrected by the experts' votes.

For one quantity of one system (the per-response score of its overall, of an ability, ...):
`y` holds the experts' value on the labelled responses, `yhat` the judge's value on the same
responses, `yhat_unlabelled` the judge's value on the system's other responses. The two sets
are disjoint. With the power-tuning weight lambda,

    corrected = mean(lambda * yhat_unlabelled) + mean(y - lambda * yhat)
    se^2      = var(lambda * yhat_unlabelled) / N + var(y - lambda * yhat) / n

(variances with divisor N and n), and the 95% interval is corrected +- z * se. lambda is the
variance-minimising weight of Angelopoulos, Duchi and Zrnic (PPI++, arXiv 2311.01453):

    lambda = cov(y, yhat) / ((1 + n / N) * var(yhat on all n + N responses))

with the covariance's divisor n and the variance's n + N - 1, clipped to [0, 1]. lambda = 0
gives the experts-only mean; lambda = 1 the plain PPI estimate of Angelopoulos et al.
(Science, 2023). Tests hold every number to `ppi_py`, the authors' implementation.

Beyond the reference, each fit keeps every response's centred contribution to the estimate
(its influence): the sum of their squares is se^2 exactly, and summing them per case gives
the covariance between systems that answered the same cases (`ppi_ranks`).

Weights. When the labelled responses were drawn with unequal chances, `w` (per labelled
response, the inverse of its inclusion probability) and `w_unlabelled` (per other response,
the inverse of its chance of not being drawn) make every mean above a weighted one, as
`ppi_py` does with `w=` and `w_unlabeled=`: each set's weights are scaled to average 1 and
multiply the values inside the means, the variances and lambda's covariance. Weights that
are all equal within a set are exactly no weights (the plain numbers, bit for bit).

No Django here. Where a number cannot be given, the fit is undefined with a reason code.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from leaderboard.stats.reasons import PPI_NO_RESPONSES as NO_RESPONSES
from leaderboard.stats.reasons import PPI_TOO_FEW_LABELLED as TOO_FEW_LABELLED

ALPHA = 0.05
# Fewer labelled responses than this give no interval: a normal interval on a handful of
# responses would claim more than it knows.
MIN_LABELLED = 10

# Reason codes (put into words by `leaderboard.corrected.wording`).


def z_value(alpha: float = ALPHA) -> float:
    """The two-sided normal critical value, as the reference computes it."""
    return float(norm.isf(alpha / 2))


def power_tuning(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    w: np.ndarray | None = None,
    w_unlabelled: np.ndarray | None = None,
) -> float:
    """PPI++'s lambda for a mean, clipped to [0, 1]; 0 when the judge's values do not vary
    (the judge then carries no information and the reference divides by zero). With
    weights (already scaled, see `_scaled`), the reference's weighted gradients around the
    lambda = 1 estimate."""
    n, big_n = len(y), len(yhat_unlabelled)
    if big_n == 0:
        return 0.0
    if w is None and w_unlabelled is None:
        cov = float(((y - y.mean()) * (yhat - yhat.mean())).sum() / n)
        pooled = np.concatenate([yhat, yhat_unlabelled])
    else:
        w = np.ones(n) if w is None else w
        w_unlabelled = np.ones(big_n) if w_unlabelled is None else w_unlabelled
        plain = (w_unlabelled * yhat_unlabelled).mean() + (w * (y - yhat)).mean()
        grads, grads_hat = w * (y - plain), w * (yhat - plain)
        cov = float(((grads - grads.mean()) * (grads_hat - grads_hat.mean())).sum() / n)
        pooled = np.concatenate([grads_hat, w_unlabelled * (yhat_unlabelled - plain)])
    var = float(pooled.var(ddof=1)) if len(pooled) > 1 else 0.0
    if var == 0.0:
        return 0.0
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))


def _scaled(weights: Sequence[float] | None, size: int, name: str) -> np.ndarray | None:
    """The weights scaled to average 1, as the reference scales them; None (no weights)
    when they are all equal, so equal weights are exactly the unweighted estimator."""
    if weights is None:
        return None
    w = np.asarray(weights, dtype=float)
    if w.shape != (size,) or not np.isfinite(w).all() or np.any(w <= 0):
        raise ValueError(f"{name}: one finite, positive weight per response is needed")
    if size == 0 or np.all(w == w[0]):
        return None
    return w / w.sum() * size


@dataclass(frozen=True)
class PPIMean:
    """One corrected mean. `reason` is set (and the numbers None) when it is undefined.

    `judge` is the judge's own mean over all n + N responses, `bias` = judge - corrected.
    `influence` and `bias_influence` map each response's key to its centred contribution
    to `corrected` and to `bias`; `labelled` is n and `unlabelled` N.
    """

    labelled: int
    unlabelled: int
    judge: float | None
    corrected: float | None = None
    se: float | None = None
    lam: float | None = None
    bias: float | None = None
    bias_se: float | None = None
    experts_only_se: float | None = None
    influence: dict | None = None
    bias_influence: dict | None = None
    reason: str | None = None
    alpha: float = ALPHA
    weighted: bool = False  # whether unequal inclusion weights entered the fit

    @property
    def is_defined(self) -> bool:
        return self.reason is None

    def interval(self) -> tuple[float, float] | None:
        if self.corrected is None or self.se is None:
            return None
        half = z_value(self.alpha) * self.se
        return (self.corrected - half, self.corrected + half)

    def bias_interval(self) -> tuple[float, float] | None:
        if self.bias is None or self.bias_se is None:
            return None
        half = z_value(self.alpha) * self.bias_se
        return (self.bias - half, self.bias + half)

    @property
    def effective_n(self) -> float | None:
        """The experts-only sample size whose interval would be as wide as this one:
        n * (experts-only variance / corrected variance). Undefined with no spread."""
        if self.se is None or self.experts_only_se is None or self.se == 0:
            return None
        return self.labelled * (self.experts_only_se / self.se) ** 2


def _centred(keys: list, values: np.ndarray) -> dict:
    return {key: float(v) for key, v in zip(keys, values - values.mean(), strict=True)}


def _undefined(labelled: int, unlabelled: int, judge: float | None, why: str) -> PPIMean:
    return PPIMean(labelled=labelled, unlabelled=unlabelled, judge=judge, reason=why)


def ppi_mean(
    *,
    y: Sequence[float],
    yhat: Sequence[float],
    yhat_unlabelled: Sequence[float],
    keys: Sequence | None = None,
    unlabelled_keys: Sequence | None = None,
    alpha: float = ALPHA,
    lam: float | None = None,
    min_labelled: int = MIN_LABELLED,
    w: Sequence[float] | None = None,
    w_unlabelled: Sequence[float] | None = None,
) -> PPIMean:
    """The PPI++ mean of the experts' values (see the module). `keys` name the labelled
    responses and `unlabelled_keys` the others, for the influence maps (default: positions,
    ("l", i) and ("u", i)). `lam` fixes lambda instead of estimating it. `w` and
    `w_unlabelled` are the sampling weights (see the module)."""
    y_arr = np.asarray(y, dtype=float)
    yhat_arr = np.asarray(yhat, dtype=float)
    yu_arr = np.asarray(yhat_unlabelled, dtype=float)
    if y_arr.shape != yhat_arr.shape or y_arr.ndim != 1 or yu_arr.ndim != 1:
        raise ValueError("y and yhat must be flat arrays of one length")
    if not (np.isfinite(y_arr).all() and np.isfinite(yhat_arr).all() and np.isfinite(yu_arr).all()):
        raise ValueError("every value must be a finite number")
    n, big_n = len(y_arr), len(yu_arr)
    keys = list(keys) if keys is not None else [("l", i) for i in range(n)]
    unlabelled_keys = (
        list(unlabelled_keys) if unlabelled_keys is not None else [("u", i) for i in range(big_n)]
    )
    total = n + big_n
    if len(keys) != n or len(unlabelled_keys) != big_n or len({*keys, *unlabelled_keys}) != total:
        raise ValueError("one distinct key per response is needed")
    w_arr = _scaled(w, n, "w")
    wu_arr = _scaled(w_unlabelled, big_n, "w_unlabelled")
    if total == 0:
        return _undefined(0, 0, None, NO_RESPONSES)
    judge = math.fsum([*yhat_arr.tolist(), *yu_arr.tolist()]) / total
    if n < max(min_labelled, 2):
        return _undefined(n, big_n, judge, TOO_FEW_LABELLED)

    if lam is None:
        lam = power_tuning(y_arr, yhat_arr, yu_arr, w_arr, wu_arr)
    rectifier = y_arr - lam * yhat_arr
    experts = y_arr
    if w_arr is not None:
        rectifier, experts = w_arr * rectifier, w_arr * y_arr
    if big_n:
        imputed = lam * yu_arr if wu_arr is None else wu_arr * (lam * yu_arr)
        corrected = float(imputed.mean() + rectifier.mean())
        imputed_var = float(imputed.std() ** 2 / big_n)
    else:
        # Every response is labelled: the experts' own mean (lambda is 0 then).
        imputed = yu_arr
        corrected = float(rectifier.mean())
        imputed_var = 0.0
    se = math.sqrt(imputed_var + float(rectifier.std() ** 2 / n))

    # Each response's centred contribution, within its own sample (labelled or not). The
    # bias is the judge's mean over all responses minus the corrected score: per labelled
    # response yhat/total - rectifier/n, per unlabelled one yhat/total - lambda*yhat/N.
    influence = _centred(keys, rectifier / n)
    bias_influence = _centred(keys, yhat_arr / total - rectifier / n)
    if big_n:
        influence.update(_centred(unlabelled_keys, imputed / big_n))
        bias_influence.update(_centred(unlabelled_keys, yu_arr / total - imputed / big_n))
    bias_se = math.sqrt(math.fsum(v * v for v in bias_influence.values()))
    return PPIMean(
        labelled=n,
        unlabelled=big_n,
        judge=judge,
        corrected=corrected,
        se=se,
        lam=float(lam),
        bias=judge - corrected,
        bias_se=bias_se,
        experts_only_se=float(experts.std() / math.sqrt(n)),
        influence=influence,
        bias_influence=bias_influence,
        alpha=alpha,
        weighted=w_arr is not None or wu_arr is not None,
    )
