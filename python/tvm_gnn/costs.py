# Licensed under the Apache License, Version 2.0.
"""What one measured candidate cost: the one rule for online labels, offline labels and tuning
curves alike.

The cost is the **median** of a measurement's run times. The median, not the mean: one run slowed
by another process on a shared machine does not move it, and TVM's own XGBModel and MLPModel
label their training data with the median (``_mean_cost`` in TVM's ``xgb_model.py`` takes the
median despite its name), so the GNN and its baselines learn from the same numbers. The dataset
is measured with ``repeat=1`` (one time per record), where median and mean agree.
"""

from __future__ import annotations

import logging
import math

import numpy as np

logger = logging.getLogger(__name__)

#: Cost of a failed build or run, as MetaSchedule's XGBModel and its databases write it.
FAILED_COST = 1e10
#: The score a cost model gives a candidate it cannot featurize: below every real score.
FAILED_SCORE = -1e10


def _valid_secs(run_secs) -> list[float] | None:
    """``run_secs`` as floats, or ``None`` for a failure: no run times, the failure cost among
    them, or a time that is not a finite positive number."""
    if not run_secs:
        return None
    secs = [float(s) for s in run_secs]
    if not all(math.isfinite(s) and 0 < s < FAILED_COST for s in secs):
        return None
    return secs


def run_cost(run_secs) -> float | None:
    """The cost in seconds of a measurement with run times ``run_secs``.

    ``None`` for a failure: no run times, MetaSchedule's failure cost among them, or a time that
    is not a finite positive number.
    """
    secs = _valid_secs(run_secs)
    return None if secs is None else float(np.median(secs))


def result_cost(builder_result, runner_result) -> float | None:
    """The cost of one measured MetaSchedule candidate (:func:`run_cost`), ``None`` if its build
    (``builder_result``, may be ``None``) or run failed."""
    if builder_result is not None and builder_result.error_msg:
        return None
    if runner_result.error_msg:
        return None
    return run_cost(runner_result.run_secs)


def label_cost(runner_result) -> float:
    """The cost of a RunnerResult for a cost model's online labels (:func:`result_cost`), or
    :data:`FAILED_COST` for a failed or invalid run (run times that are not finite positive
    numbers are logged)."""
    cost = result_cost(None, runner_result)
    if cost is None:
        if runner_result.error_msg is None and runner_result.run_secs:
            logger.warning(
                "discarding invalid run times %s (treated as a failed run)",
                [float(s) for s in runner_result.run_secs],
            )
        return FAILED_COST
    return cost


def relative_labels(costs: np.ndarray) -> np.ndarray:
    """Labels of one workload's costs as TVM's XGBModel makes them: ``min cost / cost`` (1 for
    the fastest), a failed run 0; all zeros when every run failed."""
    ok = costs < FAILED_COST
    if not ok.any():
        return np.zeros(len(costs))
    return np.where(ok, costs[ok].min() / costs, 0.0)


def ansor_cost(error_no: int, costs) -> float:
    """The cost of one Ansor measurement (``MeasureResult.error_no``, ``.costs``) as Ansor's
    XGBModel labels it (``GetPerStoreFeaturesFromMeasurePairs``): the **mean** of its run times,
    or :data:`FAILED_COST` for a failed run (error_no != 0, no times, or a time that is not a
    finite positive number)."""
    secs = _valid_secs(list(costs)) if int(error_no) == 0 else None
    return FAILED_COST if secs is None else float(np.mean(secs))
