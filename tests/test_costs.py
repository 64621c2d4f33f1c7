"""The one cost rule: the median of a measurement's run times; failures are None."""

import math

from hypothesis import given
from hypothesis import strategies as st

from tvm_gnn.costs import FAILED_COST, run_cost


def test_median_not_mean():
    assert run_cost([1.0, 2.0, 30.0]) == 2.0  # one slow run does not move the cost
    assert run_cost([0.5]) == 0.5


def test_failures_are_none():
    for bad in ([], None, [FAILED_COST], [1.0, math.nan], [1.0, math.inf], [0.0], [-1.0]):
        assert run_cost(bad) is None, bad


@given(st.lists(st.floats(min_value=1e-9, max_value=1e3), min_size=1, max_size=9))
def test_the_cost_lies_between_the_fastest_and_slowest_run(secs):
    assert min(secs) <= run_cost(secs) <= max(secs)
