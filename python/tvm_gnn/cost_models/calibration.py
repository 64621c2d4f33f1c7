# Licensed under the Apache License, Version 2.0.
"""Scores in MetaSchedule's currency: predicted normalized throughput.

MetaSchedule clips a cost model's scores at 0 and draws parents in proportion to them
(:mod:`.score_log`). XGBModel's scores are predicted ``min_cost / cost``: positive, and a
candidate predicted half as fast is drawn half as often. The GNN's raw score ``r`` is a ranking
score with no such scale; within one workload, log throughput is close to linear in it:

    log(min_cost / cost) ~ slope * r + offset

:func:`within_slope` fits ``slope`` pooled over workloads (each workload centred on its own
means, so that only the order within a workload counts). The weights ship with one fitted on
their training records (:func:`prior_of`). During tuning :class:`Calibration` refits each
workload's slope and offset on its own measurements, rescored by the current model, shrunk
toward the prior slope by :data:`PRIOR_PROGRAMS` pseudo-programs, and returns
``exp(slope * r + offset)``: positive, in the raw score's order (the slope stays at least
:data:`MIN_SLOPE_SHARE` of the prior's), and a ratio of two scores is the ratio of their
predicted speeds. Until a workload has :data:`MIN_PROGRAMS` measurements, the offset puts the
best of the round's first set at 1.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..costs import FAILED_COST
from ..errors import CheckpointError

#: the prior slope weighs as much as this many of the workload's own measurements
PRIOR_PROGRAMS = 16
#: a workload's slope is kept at or above this share of the prior's: the order never flips
MIN_SLOPE_SHARE = 0.25
#: measurements of a workload before its own offset (and slope) are fitted
MIN_PROGRAMS = 2
#: exp's argument is clipped here: scores stay finite and above 0
EXPONENT = 700.0


def workload_sums(scores, costs, groups) -> np.ndarray:
    """Per workload with two or more usable programs (finite score, measured cost), its centred
    sums ``(sxx, sxy, programs)`` of the score and of ``log(1 / cost)``: the pieces of a pooled
    within-workload slope, which a bootstrap over workloads resamples."""
    scores, costs, groups = np.asarray(scores, float), np.asarray(costs, float), np.asarray(groups)
    ok = np.isfinite(scores) & (costs > 0) & (costs < FAILED_COST)
    rows = []
    for g in np.unique(groups[ok]):
        m = ok & (groups == g)
        if m.sum() < 2:
            continue
        s, y = scores[m] - scores[m].mean(), -np.log(costs[m])
        rows.append((float(s @ s), float(s @ (y - y.mean())), float(m.sum())))
    return np.array(rows).reshape(-1, 3)


def within_slope(scores, costs, groups) -> tuple[float, int]:
    """The pooled within-workload least-squares slope of ``log(1 / cost)`` on ``scores``, and the
    programs it used (finite scores, measured costs, workloads with two or more of them)."""
    sxx, sxy, used = workload_sums(scores, costs, groups).sum(axis=0)
    if sxx <= 0:
        raise ValueError("no workload with two measured programs of different scores")
    return float(sxy / sxx), int(used)  # plain floats: checkpoints store them


@dataclass(frozen=True)
class Fit:
    """One workload's map from raw score to predicted normalized throughput."""

    slope: float
    offset: float

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.exp(np.clip(self.slope * raw + self.offset, -EXPONENT, EXPONENT))


class Calibration:
    """Per workload, the :class:`Fit` of its own measurements around the prior ``slope``."""

    def __init__(self, slope: float):
        if not (np.isfinite(slope) and slope > 0):
            raise ValueError(f"a calibration's slope is a positive number, not {slope!r}")
        self.slope = float(slope)
        self._fits: dict[str, Fit] = {}

    def reset(self) -> None:
        """The model changed: every workload is refitted on its next call."""
        self._fits.clear()

    def fit(self, raw, costs) -> Fit:
        """The fit of one workload's measured programs (``raw`` scores by the model as it is now,
        their ``costs``; failures are left out). The offset makes the mean residual 0 on
        ``log(min_cost / cost)``, so the best measured program scores about 1."""
        raw, costs = np.asarray(raw, float), np.asarray(costs, float)
        ok = np.isfinite(raw) & (costs > 0) & (costs < FAILED_COST)
        raw, costs = raw[ok], costs[ok]
        n = len(raw)
        y = np.log(costs.min() / costs) if n else costs
        slope = self.slope
        sxx = float(((raw - raw.mean()) ** 2).sum()) if n else 0.0
        if sxx > 0:
            own = float((raw - raw.mean()) @ (y - y.mean())) / sxx
            slope = (n * own + PRIOR_PROGRAMS * self.slope) / (n + PRIOR_PROGRAMS)
        slope = max(slope, MIN_SLOPE_SHARE * self.slope)
        return Fit(slope, float(y.mean() - slope * raw.mean()))

    def scores(self, key: str, raw: np.ndarray, measured) -> np.ndarray:
        """Predicted normalized throughput of ``raw`` scores of workload ``key``; NaN stays NaN.

        ``measured()`` gives ``(raw scores, costs)`` of the workload's measured programs under
        the model as it is now; it is called once a round (after :meth:`reset`), and a workload
        with fewer than :data:`MIN_PROGRAMS` of them is anchored on this first set's best."""
        if key not in self._fits:
            got = measured()
            fit = None
            if got is not None and np.sum(np.asarray(got[1]) < FAILED_COST) >= MIN_PROGRAMS:
                fit = self.fit(*got)
            if fit is None:
                finite = raw[np.isfinite(raw)]
                top = float(finite.max()) if len(finite) else 0.0
                fit = Fit(self.slope, -self.slope * top)
            self._fits[key] = fit
        return self._fits[key](raw)


def calibration_of(prior: float | None, calibrated: bool, ensemble=None) -> Calibration | None:
    """What ``GNNModel(calibrated=...)`` scores with: None for raw scores, else a
    :class:`Calibration` around the weights' ``prior`` slope (a clear error without one)."""
    if not calibrated:
        return None
    if ensemble is not None:
        raise ValueError("calibrated scores are the GNN's own: not with an ensemble")
    if not prior:
        raise ValueError(
            "calibrated=True needs weights with a calibration (tvm-gnn train writes one; the "
            "shipped weights have theirs beside them)"
        )
    return Calibration(prior)


def sidecar(checkpoint) -> Path:
    """Where the calibration of a checkpoint without one inside is kept: beside it."""
    return Path(str(checkpoint) + ".calibration.json")


def prior_of(extra: dict, checkpoint) -> float | None:
    """The prior slope of a checkpoint: its own (``extra["calibration"]``, written by training),
    or its sidecar file's (:func:`sidecar`), which must name the checkpoint's digest.

    A sidecar that is not a calibration, or that was written for other weights, raises
    :class:`~tvm_gnn.errors.CheckpointError` naming it."""
    own = extra.get("calibration")
    if isinstance(own, dict) and own.get("slope"):
        return float(own["slope"])
    path = sidecar(checkpoint)
    if not path.is_file():
        return None
    import hashlib

    slope, digest = read_sidecar(path)
    if digest != hashlib.sha256(Path(checkpoint).read_bytes()).hexdigest():
        raise CheckpointError(
            f"{path}: a calibration written for other weights (its sha256 is not "
            f"{Path(checkpoint).name}'s); remove it, or train again to write one for these"
        )
    return slope


def read_sidecar(path: Path) -> tuple[float, str]:
    """``(slope, sha256)`` of a calibration sidecar, checked: one line naming the file if its
    bytes, shape, types or range are wrong."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as err:
        reason = getattr(err, "msg", None) or type(err).__name__
        msg = f"{path}: not a calibration file (unreadable JSON: {reason})"
        raise CheckpointError(msg) from None
    if not isinstance(data, dict) or not {"slope", "sha256"} <= data.keys():
        raise CheckpointError(
            f"{path}: not a calibration file (a JSON object with 'slope' and 'sha256' expected)"
        )
    slope, digest = data["slope"], data["sha256"]
    ok_slope = isinstance(slope, (int, float)) and not isinstance(slope, bool)
    if not ok_slope or not math.isfinite(slope) or slope <= 0:
        raise CheckpointError(f"{path}: its slope is {slope!r}; a positive finite number expected")
    if not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
        raise CheckpointError(f"{path}: its sha256 is {digest!r}; 64 hex digits expected")
    return float(slope), digest
