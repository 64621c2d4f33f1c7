"""The one cost rule: the median of a measurement's run times; failures are None, and cost
FAILED_COST in a cost model's labels."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tvm.s_tir import meta_schedule as ms

from tvm_gnn.costs import FAILED_COST, label_cost, relative_labels, run_cost


def test_median_not_mean():
    assert run_cost([1.0, 2.0, 30.0]) == 2.0  # one slow run does not move the cost
    assert run_cost([0.5]) == 0.5


def test_failures_are_none():
    for bad in ([], None, [FAILED_COST], [1.0, math.nan], [1.0, math.inf], [0.0], [-1.0]):
        assert run_cost(bad) is None, bad


@given(st.lists(st.floats(min_value=1e-9, max_value=1e3), min_size=1, max_size=9))
def test_the_cost_lies_between_the_fastest_and_slowest_run(secs):
    assert min(secs) <= run_cost(secs) <= max(secs)


@pytest.mark.parametrize(
    "secs,err,expected",
    [
        ([1e-3, 3e-3, 2e-3], None, 2e-3),
        ([], None, FAILED_COST),
        ([1e-3], "boom", FAILED_COST),
        ([float("nan")], None, FAILED_COST),
        ([0.0], None, FAILED_COST),
        ([-1.0], None, FAILED_COST),
        ([float("inf")], None, FAILED_COST),
    ],
)
def test_failed_and_invalid_runs_cost_1e10(secs, err, expected):
    assert label_cost(ms.runner.RunnerResult(run_secs=secs, error_msg=err)) == expected


def test_invalid_run_times_are_logged(caplog):
    result = ms.runner.RunnerResult(run_secs=[float("nan")], error_msg=None)
    assert label_cost(result) == FAILED_COST
    assert "discarding invalid run times" in caplog.text


def test_relative_labels_are_xgbmodels():
    costs = np.array([2e-3, 1e-3, FAILED_COST, 4e-3])
    np.testing.assert_allclose(relative_labels(costs), [0.5, 1.0, 0.0, 0.25])
    np.testing.assert_array_equal(relative_labels(np.array([FAILED_COST] * 2)), [0.0, 0.0])
